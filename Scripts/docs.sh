#!/usr/bin/env bash
# Builds the DocC documentation of every library product with the toolchain's own `docc`
# (no swift-docc-plugin dependency) as static sites in .build/docs/<Module>, or in the folder
# given as the first argument. Fails on any docc warning and on any public symbol declared in
# the package without a doc comment of its own (Scripts/docs-undocumented.py). What the
# compiler synthesizes (an enum's `init(rawValue:)`) shows its protocol's documentation.
#
# Symbol graphs are extracted from the modules the debug build already compiled (so after
# Scripts/test.sh nothing is rebuilt), with the same module-map flags SwiftPM gave swiftc;
# the build-tool plugin's generated code of SelfDB and Synchro is in those modules too.
#
#   SWIFT_BUILD_FLAGS="-j 1"      extra flags for `swift build` (keep them equal to the test
#                                 build's, or SwiftPM recompiles every module)
#   DOCS_SKIP_BUILD=1             use the modules as last built (after a full test build)
#   DOCS_HOSTING_BASE_PATH=name   where the sites are served: <name>/<Module>/documentation/…
#                                 (default: selfdb-swift)
#
# Checked on Linux (Scripts/test.sh runs it there only; CI's Linux job). On macOS it finds docc
# and the extractor through xcrun and keeps to bash 3.2, but nobody has run it there yet.
set -euo pipefail
cd "$(dirname "$0")/.."

modules=(SelfDB SelfDBRuntime SelfDBRealtime SelfDBCache SelfDBStore CRDTSQLite Synchro CachedData CachedDataDependencies SelfDBTesting)
output="${1:-.build/docs}"
hosting_base="${DOCS_HOSTING_BASE_PATH:-selfdb-swift}"
read -r -a build_flags <<< "${SWIFT_BUILD_FLAGS:-}"
if [ "$(uname -s)" = Darwin ]; then
    # /usr/bin/swift is a shim: the tools are in the selected Xcode's toolchain.
    docc="$(xcrun --find docc)"
    extract="$(xcrun --find swift-symbolgraph-extract)"
else
    # The tools of the toolchain that runs `swift` (its bin folder, through any symlinks).
    toolchain_bin="$(dirname "$(realpath "$(command -v swift)")")"
    docc="$toolchain_bin/docc"
    extract="$toolchain_bin/swift-symbolgraph-extract"
fi
graphs=".build/docs-symbol-graphs"
started=$SECONDS

# These four targets depend on every documented module. Each `swift build` with another
# target list re-plans the build (seconds each), so Scripts/test.sh, whose test build has just
# compiled every module, skips this with DOCS_SKIP_BUILD=1.
if [ -z "${DOCS_SKIP_BUILD:-}" ]; then
    for target in CachedDataDependencies Synchro CRDTSQLite SelfDBTesting; do
        # (An empty array expands under `set -u` only this way in bash 3.2, macOS's.)
        swift build ${build_flags[@]+"${build_flags[@]}"} --target "$target" > /dev/null
    done
fi

status=0
for module in "${modules[@]}"; do
    rm -rf "${graphs:?}/$module" "${output:?}/$module"
    mkdir -p "$graphs/$module" "$output"
    # The include paths, module maps and target swiftc got for this module (C modules of NIO,
    # SQLite…; on Apple platforms the deployment target of Package.swift and the SDK).
    flags=()
    while IFS= read -r flag; do flags+=("$flag"); done < <(python3 Scripts/docs-module-flags.py "$module" .build/debug.yaml)
    # Only the module's own graphs (<M>.symbols.json and <M>@<Extended>.symbols.json): the
    # extractor writes no dependency's graph, so every link resolves within the module.
    "$extract" -module-name "$module" ${flags[@]+"${flags[@]}"} \
        -minimum-access-level public -skip-synthesized-members -emit-extension-block-symbols \
        -output-dir "$graphs/$module"
    if ! python3 Scripts/docs-undocumented.py "$graphs/$module"; then
        status=1
    fi
    if ! "$docc" convert "Sources/$module/$module.docc" \
        --additional-symbol-graph-dir "$graphs/$module" \
        --fallback-display-name "$module" \
        --fallback-bundle-identifier "org.selfdb.$module" \
        --output-path "$output/$module" \
        --transform-for-static-hosting \
        --hosting-base-path "$hosting_base/$module" \
        --enable-inherited-docs \
        --warnings-as-errors | sed '/^$/d'; then
        echo "docs.sh: $module: docc reported warnings or errors" >&2
        status=1
    fi
done

if [ "$status" -ne 0 ]; then
    echo "docs.sh: documentation FAILED ($((SECONDS - started)) s)" >&2
    exit 1
fi
echo "docs.sh: documentation of ${#modules[@]} modules in $output, no warnings ($((SECONDS - started)) s)"

#!/usr/bin/env bash
# The full test suite (swift test: spec, codegen, generated code, emulator, client, realtime,
# store, CRDT and cache, all against real SQLite files and the emulator on loopback), the
# spec JSON Schema check, the documentation's examples, the end-to-end plugin check in a
# fresh app package, the DocC documentation (no warnings, every public symbol documented),
# swift-format's lint (first: it takes seconds) and a lint of the CI workflows and .spi.yml.
#
# Runs on Linux and on macOS with Xcode (its /bin/bash 3.2 is enough). On macOS nothing is
# installed (the SDK has sqlite3) and the DocC check is left to CI's Linux job.
set -euo pipefail
cd "$(dirname "$0")/.."
# On Debian/Ubuntu: the build's packages, and Python with PyYAML and jsonschema for the
# checks below (the official Swift images have no python3).
bash Scripts/install-system-packages.sh python3 python3-yaml python3-jsonschema
if [ "$(uname -s)" = Darwin ] && ! swift format --version >/dev/null 2>&1; then
    echo "test.sh: Scripts/format.sh skipped (this Xcode's toolchain has no swift-format; CI's Linux job lints)"
else
    bash Scripts/format.sh
fi
bash Scripts/lint-yaml.sh
swift build --build-tests
# The committed Swift of Spec/selfdb.yaml and Spec/synchro.yaml is what the generator writes now.
SELFDB_CODEGEN="$(swift build --show-bin-path)/selfdb-codegen" bash Scripts/generate.sh --check
swift test 2>&1 | tee .build/test-output.txt
python3 Scripts/check-spec-schema.py
python3 Scripts/check-doc-examples.py "$(swift build --show-bin-path)/selfdb-codegen"
bash Scripts/check-plugin-app.sh
if [ "$(uname -s)" = Darwin ]; then
    echo "test.sh: Scripts/docs.sh skipped on macOS (it is run on Linux: CI's Linux job checks the documentation)"
else
    # The test build has compiled every documented module: only the symbol graphs and docc run.
    DOCS_SKIP_BUILD=1 bash Scripts/docs.sh
fi

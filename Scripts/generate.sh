#!/usr/bin/env bash
# Regenerates the Swift of our own specs, which is committed (our library targets apply no
# build-tool plugin, so apps that use them never compile the generator):
#   Spec/selfdb.yaml     → Sources/SelfDB/Generated
#   Spec/synchro.yaml    → Sources/Synchro/Generated
#   Spec/synchro-v2.yaml → Sources/Synchro/Generated (protocol 2, beside protocol 1)
# `Scripts/generate.sh --check` writes nothing and fails, naming each file, when a committed file
# differs by a byte from what the generator writes now: CI runs it, so a spec or generator change
# without a regeneration does not land. SELFDB_CODEGEN names a prebuilt selfdb-codegen.
set -euo pipefail
cd "$(dirname "$0")/.."
mode=()
case "${1:-}" in
    "") ;;
    --check) mode=(--check) ;;
    *) echo "usage: Scripts/generate.sh [--check]" >&2; exit 2 ;;
esac
codegen=${SELFDB_CODEGEN:-}
if [ -z "$codegen" ]; then
    swift build --product selfdb-codegen >/dev/null
    codegen="$(swift build --show-bin-path)/selfdb-codegen"
fi
"$codegen" generate ${mode[@]+"${mode[@]}"} --relative-to . --output Sources/SelfDB/Generated Spec/selfdb.yaml
"$codegen" generate ${mode[@]+"${mode[@]}"} --relative-to . --output Sources/Synchro/Generated Spec/synchro.yaml
"$codegen" generate ${mode[@]+"${mode[@]}"} --relative-to . --output Sources/Synchro/Generated Spec/synchro-v2.yaml

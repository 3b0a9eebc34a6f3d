#!/usr/bin/env bash
# The full test suite (swift test: spec, codegen, generated code, emulator, client, realtime,
# store, CRDT and cache, all against real SQLite files and the emulator on loopback), the
# spec JSON Schema check, the documentation's examples, the end-to-end plugin check in a
# fresh app package, the DocC documentation (no warnings, every public symbol documented), and
# swift-format's lint (first: it takes seconds).
set -euo pipefail
cd "$(dirname "$0")/.."
bash Scripts/install-system-packages.sh
bash Scripts/format.sh
swift build --build-tests
swift test 2>&1 | tee .build/test-output.txt
python3 Scripts/check-spec-schema.py
python3 Scripts/check-doc-examples.py "$(swift build --show-bin-path)/selfdb-codegen"
bash Scripts/check-plugin-app.sh
# The test build has compiled every documented module: only the symbol graphs and docc run.
DOCS_SKIP_BUILD=1 bash Scripts/docs.sh

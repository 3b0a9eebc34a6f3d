#!/usr/bin/env bash
# swift-format over the package's own Swift (the toolchain ships it; `.swift-format` is the
# configuration): `Scripts/format.sh` lints with warnings as errors, as CI does;
# `Scripts/format.sh --fix` rewrites the files in place first.
set -euo pipefail
cd "$(dirname "$0")/.."
paths=(Sources Tests Plugins Benchmarks/Benchmarks Benchmarks/Profile Benchmarks/SynchroProfile Benchmarks/SynchroBenchmarkSupport Benchmarks/SideBySide Package.swift Benchmarks/Package.swift)
if [ "${1:-}" = "--fix" ]; then
    swift format format --in-place --recursive --parallel "${paths[@]}"
fi
swift format lint --strict --recursive --parallel "${paths[@]}"
echo "format.sh: swift-format finds nothing to change"

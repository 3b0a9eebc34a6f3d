#!/usr/bin/env bash
# Line count and clean debug compile time of the generated code for Spec/selfdb.yaml and the
# synthetic spec: each is generated into a fresh package of its own (runtime prebuilt), and
# only that module's compilation is timed.
set -euo pipefail
repo=$(cd "$(dirname "$0")/../.." && pwd)
identity=$(basename "$repo" | tr '[:upper:]' '[:lower:]')
tool="$(cd "$repo" && swift build --product selfdb-codegen --show-bin-path)/selfdb-codegen"
(cd "$repo" && swift build --product selfdb-codegen >/dev/null)
work=$(mktemp -d /tmp/selfdb-measure-XXXXXX)
trap 'rm -rf "$work"' EXIT
measure() {
  local name=$1 spec=$2
  local pkg="$work/$name"
  mkdir -p "$pkg/Sources/Generated"
  cat > "$pkg/Package.swift" <<SWIFT
// swift-tools-version: 6.1
import PackageDescription
let package = Package(name: "M", platforms: [.macOS(.v14)], dependencies: [.package(path: "$repo")],
  targets: [.target(name: "Generated", dependencies: [.product(name: "SelfDBRuntime", package: "$identity")])])
SWIFT
  "$tool" generate --output "$pkg/Sources/Generated" "$spec"
  if [ "$name" = selfdb ]; then
    # The SelfDB spec extends the hand-written client class; give it the one property it needs.
    printf 'import SelfDBRuntime\npublic final class SelfDB: Sendable { let apiClient: APIClient; init(apiClient: APIClient) { self.apiClient = apiClient } }\n' > "$pkg/Sources/Generated/SelfDB.swift"
  fi
  (cd "$pkg" && swift build --target SelfDBRuntime >/dev/null 2>&1)
  local lines start end
  lines=$(cat "$pkg"/Sources/Generated/*.generated.swift | wc -l)
  start=$(date +%s.%N)
  (cd "$pkg" && swift build --target Generated >/dev/null)
  end=$(date +%s.%N)
  printf '%-10s %7d generated lines, clean debug compile %.1f s\n' "$name" "$lines" "$(python3 -c "print($end - $start)")"
}
measure selfdb "$repo/Spec/selfdb.yaml"
measure synthetic "$repo/Benchmarks/Fixtures/synthetic.yaml"

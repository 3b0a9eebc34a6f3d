#!/usr/bin/env bash
# End-to-end check of the build-tool plugin from a user's side: a fresh app package that
# depends on this one by path and applies the plugin to its own table model.
#  1. it builds and the generated query builder works;
#  2. a typo in the spec fails the build with a `file:line:col: error:` line;
#  3. a misspelt column in Swift fails to compile;
#  4. `swift package selfdb-validate` works as a CI step, and
#  5. `swift package selfdb-codegen` writes generated code for committing.
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
# A path dependency is identified by its folder name, whatever the clone is called.
identity=$(basename "$repo" | tr '[:upper:]' '[:lower:]')
app=$(mktemp -d /tmp/selfdb-app-XXXXXX)
trap 'rm -rf "$app"' EXIT
mkdir -p "$app/Sources/TodoApp"
cat > "$app/Package.swift" <<SWIFT
// swift-tools-version: 6.1
import PackageDescription
let package = Package(
    name: "TodoApp",
    platforms: [.macOS(.v14)],
    dependencies: [.package(path: "$repo")],
    targets: [
        .executableTarget(
            name: "TodoApp",
            dependencies: [.product(name: "SelfDBRuntime", package: "$identity")],
            plugins: [.plugin(name: "SelfDBCodegenPlugin", package: "$identity")]
        ),
    ]
)
SWIFT
cat > "$app/Sources/TodoApp/models.yaml" <<'YAML'
spec: 1
tables:
  Todo:
    table: todos
    primaryKey: id
    realtime: true
    columns:
      id: uuid
      title: { type: text, nullable: false }
      done: { type: boolean, default: false }
      created_at: timestamp
YAML
cat > "$app/Sources/TodoApp/main.swift" <<'SWIFT'
import Foundation
import SelfDBRuntime

let query = Todo.query().search("milk").sort(.createdAt, .asc).page(2).where(\.done, .equals(false))
print(query.queryItems.map { "\($0.name)=\($0.value ?? "")" }.joined(separator: "&"))
print(Todo.columns.map(\.name).joined(separator: ","))
SWIFT

step() { echo "--- check-plugin-app: $*"; }
# Edits a file in place with a sed script (`sed -i` differs: GNU sed takes no argument, BSD sed
# on macOS needs one).
edit() { sed "$1" "$2" > "$2.edited" && mv "$2.edited" "$2"; }
fail() { echo "FAILED: $*"; exit 1; }
cd "$app"

step "a table model builds and its query builder runs"
swift build 2>&1 | tail -3
out=$(swift run -q TodoApp)
echo "$out"
[ "$(echo "$out" | head -n 1)" = "page=2&search=milk&sort_by=created_at&sort_order=asc" ] || fail "unexpected query: $out"
[ "$(echo "$out" | sed -n 2p)" = "id,title,done,created_at" ] || fail "unexpected columns: $out"

step "a rebuild with no spec change runs no generator"
if swift build -v 2>&1 | grep -q "Generating Swift from"; then fail "the generator ran without a spec change"; fi

step "a spec typo fails the build at its line and column"
edit 's/title: { type: text/title: { type: txt/' Sources/TodoApp/models.yaml
if out=$(swift build 2>&1); then fail "the build passed with a spec typo"; fi
echo "$out" | grep -E "models.yaml:9:22: error: unknown column type 'txt'; did you mean 'text'\?" || { echo "$out" | tail -20; fail "no file:line:col diagnostic"; }
edit 's/title: { type: txt/title: { type: text/' Sources/TodoApp/models.yaml

step "a misspelt column does not compile"
edit 's/sort(.createdAt/sort(.createdAtt/' Sources/TodoApp/main.swift
if out=$(swift build 2>&1); then fail "the build passed with a misspelt column"; fi
echo "$out" | grep -E "main.swift:4:.*error: type 'Todo.Column' has no member 'createdAtt'" || { echo "$out" | tail -20; fail "no compile error for the misspelt column"; }
edit 's/sort(.createdAtt/sort(.createdAt/' Sources/TodoApp/main.swift

step "YAML without a top-level 'spec:' key is not a spec: the generator leaves it alone and the build passes"
printf 'server:\n  url: https://example.com\n  spec: nested, not top-level\n' > Sources/TodoApp/config.yaml
out=$(swift build 2>&1) || { echo "$out" | tail -20; fail "a non-spec YAML file broke the build"; }
# SwiftPM itself still lists a file that no plugin command and no resource rule consumes as
# "unhandled" (a warning); what must not happen is the generator reading it.
if echo "$out" | grep -F "config.yaml" | grep -E "error|Generating"; then fail "the generator took a non-spec YAML file for a spec"; fi
[ ! -e "$(find .build -name 'config.models.generated.swift' -print -quit)" ] || fail "a non-spec YAML file was generated from"

step "two specs whose names differ only in case are refused"
printf 'spec: 1\nmodels:\n  Other: { fields: { id: Int } }\n' > Sources/TodoApp/Models.yml
if out=$(swift build 2>&1); then fail "the build passed with models.yaml and Models.yml"; fi
echo "$out" | grep -q "differ only in case" || { echo "$out" | tail -20; fail "no clear error for specs that differ only in case"; }
rm Sources/TodoApp/Models.yml

step "the command plugin validates specs (a CI step)"
swift package selfdb-validate 2>&1 | tail -2
printf 'spec: 1\nmodels:\n  Bad: { fields: { x: Strng } }\n' > Sources/TodoApp/broken.yaml
if out=$(swift package selfdb-validate 2>&1); then fail "validate passed a broken spec"; fi
echo "$out" | grep -E "broken.yaml:3:23: error: unknown type 'Strng'; did you mean 'String'\?" || { echo "$out"; fail "validate printed no diagnostic"; }
rm Sources/TodoApp/broken.yaml

step "the command plugin writes generated code for committing"
swift package --allow-writing-to-package-directory selfdb-codegen --output "$app/Committed" 2>&1 | tail -2
head -n 1 "$app/Committed/models.tables.generated.swift" | grep -q "Generated by selfdb-codegen from Sources/TodoApp/models.yaml" || fail "no generated file written"
echo "check-plugin-app: all checks passed"

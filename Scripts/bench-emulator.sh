#!/usr/bin/env bash
# Load benchmark of the SelfDB emulator: requests/second for login, a paged fetch of
# 100 rows and a row insert, measured with wrk on loopback against a release build.
#
#   Scripts/bench-emulator.sh [seconds-per-run (default 5)] [connections (default 16)]
#
# Needs wrk (apt-get install wrk; on macOS brew install wrk), curl and python3. Starts its own
# emulator on a free port with a temporary data directory and stops it on exit.
set -euo pipefail

DURATION="${1:-5}"
CONNECTIONS="${2:-16}"
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
API_KEY="bench-key"
ADMIN_EMAIL="admin@example.com"
ADMIN_PASSWORD="Admin123!"

command -v wrk >/dev/null || { echo "wrk is not installed (apt-get install wrk, or brew install wrk)" >&2; exit 1; }
# The core count: GNU coreutils' nproc, or macOS's sysctl.
cores="$(nproc 2>/dev/null || sysctl -n hw.ncpu)"

swift build -c release --product selfdb-emulator --package-path "$ROOT" >/dev/null
BIN="$(swift build -c release --package-path "$ROOT" --show-bin-path)/selfdb-emulator"

WORK="$(mktemp -d)"
PORT="$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1]); s.close()')"
"$BIN" --port "$PORT" --data-dir "$WORK/data" --api-key "$API_KEY" \
    --admin-email "$ADMIN_EMAIL" --admin-password "$ADMIN_PASSWORD" --quiet >"$WORK/server.log" 2>&1 &
SERVER_PID=$!
cleanup() {
    kill "$SERVER_PID" 2>/dev/null || true
    wait "$SERVER_PID" 2>/dev/null || true
    rm -rf "$WORK"
}
trap cleanup EXIT

BASE="http://127.0.0.1:$PORT"
for _ in $(seq 1 100); do
    curl -fs -o /dev/null -H "X-API-Key: $API_KEY" "$BASE/tables/count" && break
    sleep 0.1
done

json() { python3 -c "import json,sys; print(json.load(sys.stdin)$1)"; }
LOGIN_BODY="{\"email\":\"$ADMIN_EMAIL\",\"password\":\"$ADMIN_PASSWORD\"}"
TOKEN="$(curl -fs -H "X-API-Key: $API_KEY" -H 'Content-Type: application/json' -d "$LOGIN_BODY" "$BASE/users/token" | json "['access_token']")"
TABLE="$(curl -fs -H "X-API-Key: $API_KEY" -H "Authorization: Bearer $TOKEN" -H 'Content-Type: application/json' \
    -d '{"name":"bench_rows","public":true,"table_schema":{"id":{"type":"uuid","nullable":false},"title":{"type":"text"},"n":{"type":"integer"},"done":{"type":"boolean"}}}' \
    "$BASE/tables/" | json "['id']")"
for i in $(seq 1 100); do
    curl -fs -o /dev/null -H "X-API-Key: $API_KEY" -H "Authorization: Bearer $TOKEN" -H 'Content-Type: application/json' \
        -d "{\"title\":\"row $i\",\"n\":$i,\"done\":false}" "$BASE/tables/$TABLE/data"
done

cat >"$WORK/login.lua" <<LUA
wrk.method = "POST"
wrk.body = '$LOGIN_BODY'
wrk.headers["Content-Type"] = "application/json"
wrk.headers["X-API-Key"] = "$API_KEY"
LUA
cat >"$WORK/fetch.lua" <<LUA
wrk.headers["X-API-Key"] = "$API_KEY"
LUA
cat >"$WORK/insert.lua" <<LUA
wrk.method = "POST"
wrk.body = '{"title":"inserted by wrk","n":1,"done":true}'
wrk.headers["Content-Type"] = "application/json"
wrk.headers["X-API-Key"] = "$API_KEY"
wrk.headers["Authorization"] = "Bearer $TOKEN"
LUA
run() {
    local name="$1" script="$2" path="$3"
    local output
    output="$(wrk -t2 -c"$CONNECTIONS" -d"${DURATION}s" --latency -s "$script" "$BASE$path")"
    local rps latency
    rps="$(echo "$output" | awk '/Requests\/sec/ {print $2}')"
    latency="$(echo "$output" | awk '/ 50%/ {print $2}')"
    local non2xx
    non2xx="$(echo "$output" | awk '/Non-2xx/ {print $5}')"
    # Non-2xx answers would make a figure meaningless, so they are shown next to it.
    printf "%-28s %10s req/s   p50 %-9s %s\n" "$name" "$rps" "$latency" "${non2xx:+(non-2xx: $non2xx)}"
}

echo "SelfDB emulator (release) on $BASE, wrk -t2 -c$CONNECTIONS -d${DURATION}s, $cores cores"
run "POST /users/token (login)" "$WORK/login.lua" "/users/token"
run "GET data (100 rows/page)" "$WORK/fetch.lua" "/tables/$TABLE/data?page=1&page_size=100"
run "POST data (insert)" "$WORK/insert.lua" "/tables/$TABLE/data"

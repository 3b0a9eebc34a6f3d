#!/usr/bin/env bash
# The README demo: the generated SelfDB client against the embedded emulator, or against a
# real SelfDB when SELFDB_URL and SELFDB_API_KEY are set. It removes what it writes, so it can
# run again on the same server; a part whose service is not reachable (realtime) is skipped
# and said so, and the exit status is non-zero only when a part that ran failed.
set -euo pipefail
cd "$(dirname "$0")/.."
bash Scripts/install-system-packages.sh
swift build --product selfdb-demo
exec "$(swift build --show-bin-path)/selfdb-demo"

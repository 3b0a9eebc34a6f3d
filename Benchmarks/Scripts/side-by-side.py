#!/usr/bin/env python3
"""Side-by-side benchmark of two Synchro clients through the same emulator.

Runs the driver of Benchmarks/SideBySide/Driver/main.swift built twice -- once against this
package's `Synchro` ("ours"), once against another client with the same API ("official") --
through the same steps against a `selfdb-emulator` serving Spec/Examples/tasks-sync.yaml on
Synchro protocol 2, and prints the medians and the ours/official ratios.

    python3 Benchmarks/Scripts/side-by-side.py \\
        --ours Benchmarks/.build/release/SynchroSideBySideDriver \\
        --official /path/to/other/SynchroSideBySideDriver \\
        --emulator .build/release/selfdb-emulator [--rounds 5]

Each round starts a fresh emulator on 127.0.0.1 (a free port, a temporary data directory),
then runs every measure with both drivers, the order of the two alternating from round to
round, each client with users of its own (HS256 JWTs minted here, `sub` = user id), and stops
the emulator. Per client and round, in this order:

  e2e            device A writes --rows tasks in one transaction and pushes (syncNow);
                 device B, fresh, start() + syncNow() until it holds them; then both close
  tracked-write  --rows INSERTs into the synced table vs into a local table made with SQL
                 (--write-repeats times, each on a fresh database and user, the two
                 writes' order alternating)
  noop           a fresh device syncs the e2e rows, then --calls syncNow() with nothing to do,
                 then --calls times one row updated and syncNow() (an edit pushed)
  warm           that device reopened: init + start() (its first cycle), then an idle close()

Requests are counted per phase from the emulator's request log: the driver GETs
/__bench/<phase> after each phase (outside its timings), and the lines between two markers
are that phase's requests.
"""

import argparse
import base64
import hashlib
import hmac
import json
import os
import re
import secrets
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time
import uuid

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
DEFAULT_SPEC = os.path.join(ROOT, "Spec", "Examples", "tasks-sync.yaml")
CLIENTS = ("ours", "official")


def b64url(data):
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode("ascii")


def mint_jwt(secret, user):
    """An HS256 JWT the emulator accepts with --sync-jwt-secret: `sub` is the user id."""
    now = int(time.time())
    header = b64url(json.dumps({"alg": "HS256", "typ": "JWT"}, separators=(",", ":")).encode())
    payload = b64url(json.dumps({"sub": user, "iat": now, "exp": now + 6 * 3600}, separators=(",", ":")).encode())
    signing_input = f"{header}.{payload}".encode("ascii")
    signature = hmac.new(secret.encode(), signing_input, hashlib.sha256).digest()
    return f"{header}.{payload}.{b64url(signature)}"


class Emulator:
    """A selfdb-emulator on 127.0.0.1 with a free port and its own data directory."""

    BANNER = re.compile(r"listening on (http://127\.0\.0\.1:\d+)")

    def __init__(self, binary, spec, secret, directory):
        self.log_path = os.path.join(directory, "emulator.log")
        self.err_path = os.path.join(directory, "emulator.err")
        self.log = open(self.log_path, "wb")
        self.err = open(self.err_path, "wb")
        self.process = subprocess.Popen(
            [
                binary, "--port", "0", "--data-dir", os.path.join(directory, "server"),
                "--sync-spec", spec, "--sync-protocol", "2", "--sync-jwt-secret", secret,
                "--password-hash-iterations", "1000",
            ],
            stdout=self.log, stderr=self.err, stdin=subprocess.DEVNULL,
        )
        self.url = None
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            with open(self.log_path, "r", errors="replace") as log:
                match = self.BANNER.search(log.read())
            if match:
                self.url = match.group(1)
                return
            if self.process.poll() is not None:
                break
            time.sleep(0.05)
        self.stop()
        with open(self.err_path, errors="replace") as err:
            raise RuntimeError(f"emulator did not start: {err.read()[-2000:]}")

    def offset(self):
        return os.path.getsize(self.log_path)

    def lines_since(self, offset):
        with open(self.log_path, "rb") as log:
            log.seek(offset)
            return log.read().decode(errors="replace").splitlines()

    def stop(self):
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(timeout=15)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        self.log.close()
        self.err.close()


REQUEST_LINE = re.compile(r"^(GET|POST|PUT|PATCH|DELETE|HEAD|OPTIONS) (\S+) (\d{3}) ")


def requests_per_phase(lines):
    """{phase: {"n": count, "paths": {"POST /sync/pull": count}}} from the log lines of one run."""
    phases = {}
    current = []
    for line in lines:
        match = REQUEST_LINE.match(line)
        if not match:
            continue
        method, path, status = match.groups()
        if path.startswith("/__bench/"):
            label = path[len("/__bench/"):]
            paths = {}
            for request in current:
                paths[request] = paths.get(request, 0) + 1
            phases[label] = {"n": len(current), "paths": paths}
            current = []
        else:
            current.append(f"{method} {path}" + ("" if status.startswith("2") else f" [{status}]"))
    return phases


def run_driver(binary, emulator, token, db, client_id, measure, args, extra=()):
    command = [
        binary, "--server", emulator.url, "--token", token, "--db", db, "--client-id", client_id,
        "--measure", measure, "--rows", str(args.rows), "--calls", str(args.calls), "--expect", str(args.rows),
        *extra,
    ]
    offset = emulator.offset()
    completed = subprocess.run(command, capture_output=True, text=True, timeout=args.timeout)
    time.sleep(0.2)  # the emulator's last log lines
    if completed.returncode != 0:
        raise RuntimeError(
            f"{binary} --measure {measure} exited {completed.returncode}\n"
            f"stdout: {completed.stdout[-2000:]}\nstderr: {completed.stderr[-4000:]}"
        )
    lines = [line for line in completed.stdout.splitlines() if line.startswith("{")]
    if not lines:
        raise RuntimeError(f"{binary} --measure {measure} printed no JSON line:\n{completed.stdout[-2000:]}")
    result = json.loads(lines[-1])
    result["requests"] = requests_per_phase(emulator.lines_since(offset))
    return result


MEASURES = ("e2e", "tracked-write", "noop", "warm")


def run_round(number, args, results):
    order = CLIENTS if number % 2 == 0 else tuple(reversed(CLIENTS))
    binaries = {"ours": args.ours, "official": args.official}
    directory = tempfile.mkdtemp(prefix=f"synchro-side-by-side-{number}-")
    secret = secrets.token_hex(32)
    emulator = Emulator(args.emulator, args.spec, secret, directory)
    try:
        # One user per client for e2e, noop and warm (noop pulls what e2e pushed).
        tokens = {client: mint_jwt(secret, str(uuid.uuid4())) for client in CLIENTS}
        print(f"round {number + 1}/{args.rounds}: {emulator.url}, first: {order[0]}", file=sys.stderr)
        for measure in MEASURES:
            # The writes take a tenth of a second: run them a few times, each on a fresh
            # database and with a user of its own, alternating which client goes first.
            repeats = args.write_repeats if measure == "tracked-write" else 1
            for repeat in range(repeats):
                for client in order if repeat % 2 == 0 else tuple(reversed(order)):
                    extra = ()
                    if measure == "tracked-write":
                        token = mint_jwt(secret, str(uuid.uuid4()))
                        db = os.path.join(directory, f"{client}-write-{repeat}.sqlite")
                        # Which of the two writes goes first alternates too.
                        extra = ("--order", "tracked-first" if repeat % 2 else "untracked-first")
                    else:
                        token = tokens[client]
                        db = os.path.join(directory, f"{client}-{'noop' if measure == 'warm' else measure}.sqlite")
                    result = run_driver(binaries[client], emulator, token, db, f"{client}-{number}", measure, args, extra)
                    results[client].setdefault(measure, []).append(result)
                    if args.verbose:
                        print(f"  {client:8} {json.dumps(result, sort_keys=True)}", file=sys.stderr)
    finally:
        emulator.stop()
        if args.keep:
            print(f"  kept {directory}", file=sys.stderr)
        else:
            shutil.rmtree(directory, ignore_errors=True)


# (label, measure, key, unit scale, unit)
ROWS = (
    ("e2e total: A write + push, B start+sync", "e2e", "total_s", 1, "s"),
    ("  A write (one transaction)", "e2e", "write_s", 1000, "ms"),
    ("  A push (syncNow)", "e2e", "push_s", 1, "s"),
    ("  B pull (start + syncNow)", "e2e", "pull_s", 1, "s"),
    ("tracked write", "tracked-write", "tracked_s", 1000, "ms"),
    ("untracked write (local table)", "tracked-write", "untracked_s", 1000, "ms"),
    ("tracked / untracked", "tracked-write", "tracked_over_untracked", 1, "x"),
    ("no-op syncNow wall", "noop", "noop_wall_s", 1000, "ms"),
    ("no-op syncNow CPU (user+sys)", "noop", "noop_cpu_s", 1000, "ms"),
    ("edit + syncNow wall (one row pushed)", "noop", "edit_wall_s", 1000, "ms"),
    ("edit + syncNow CPU", "noop", "edit_cpu_s", 1000, "ms"),
    ("warm start wall (init + start)", "warm", "warm_wall_s", 1000, "ms"),
    ("warm start CPU", "warm", "warm_cpu_s", 1000, "ms"),
    ("  init only", "warm", "init_wall_s", 1000, "ms"),
    ("close() after pulling the rows (B)", "e2e", "close_after_pull_s", 1000, "ms"),
    ("close() after pushing the rows (A)", "e2e", "close_after_push_s", 1000, "ms"),
    ("close() idle", "warm", "close_idle_s", 1000, "ms"),
    ("  WAL before close() after pulling (B)", "e2e", "wal_bytes_before_close_b", 1 / 1024, "KiB"),
    ("  WAL before close() after pushing (A)", "e2e", "wal_bytes_before_close_a", 1 / 1024, "KiB"),
    ("  WAL before close() idle", "warm", "wal_bytes_before_close", 1 / 1024, "KiB"),
)

# (label, measure, phase, divisor)
REQUEST_ROWS = (
    ("e2e A start (setup)", "e2e", "setup", 1),
    ("e2e A push", "e2e", "push", 1),
    ("e2e B start + syncNow", "e2e", "pull", 1),
    ("tracked-write start (setup)", "tracked-write", "setup", 1),
    ("no-op syncNow (per call)", "noop", "noop", None),
    ("edit + syncNow (per call)", "noop", "edit", None),
    ("warm start", "warm", "warm", 1),
    ("close() (idle)", "warm", "close", 1),
)


def values(results, client, measure, key):
    return [run[key] for run in results[client].get(measure, []) if key in run]


def request_values(results, client, measure, phase, divisor):
    counts = []
    for run in results[client].get(measure, []):
        if phase in run["requests"]:
            n = run["requests"][phase]["n"]
            counts.append(n / (divisor or run.get("calls", 1)))
    return counts


def request_paths(results, client, measure, phase):
    runs = results[client].get(measure, [])
    if not runs or phase not in runs[-1]["requests"]:
        return ""
    paths = runs[-1]["requests"][phase]["paths"]
    return ", ".join(f"{n}x {path}" for path, n in sorted(paths.items()))


def print_tables(results, args):
    def fmt(value):
        if value != value:  # nan
            return "-"
        return f"{value:.3f}" if abs(value) < 10 else f"{value:.1f}"

    print(f"\nSynchro side by side: {args.rounds} rounds, {args.rows} rows, {args.calls} no-op calls, "
          f"page/batch 100, protocol 2; medians of n runs; ratio = ours / official (< 1: ours is faster)\n")
    header = f"{'measure':44} {'unit':>4} {'ours':>10} {'official':>10} {'ratio':>7} {'n':>3}"
    print(header)
    print("-" * len(header))
    for label, measure, key, scale, unit in ROWS:
        ours = values(results, "ours", measure, key)
        official = values(results, "official", measure, key)
        if not ours and not official:
            continue
        m_ours = statistics.median(ours) * scale if ours else float("nan")
        m_official = statistics.median(official) * scale if official else float("nan")
        ratio = m_ours / m_official if ours and official and m_official else float("nan")
        print(f"{label:44} {unit:>4} {fmt(m_ours):>10} {fmt(m_official):>10} {fmt(ratio):>7} {min(len(ours), len(official)):>3}")

    print(f"\nHTTP requests per phase (median over rounds)\n")
    header = f"{'phase':32} {'ours':>8} {'official':>8}"
    print(header)
    print("-" * len(header))
    for label, measure, phase, divisor in REQUEST_ROWS:
        ours = request_values(results, "ours", measure, phase, divisor)
        official = request_values(results, "official", measure, phase, divisor)
        if not ours and not official:
            continue
        m_ours = statistics.median(ours) if ours else float("nan")
        m_official = statistics.median(official) if official else float("nan")
        print(f"{label:32} {fmt(m_ours):>8} {fmt(m_official):>8}")
    if args.verbose:
        print("\nRequests of the last round, by endpoint")
        for label, measure, phase, _ in REQUEST_ROWS:
            for client in CLIENTS:
                print(f"  {label:30} {client:8} {request_paths(results, client, measure, phase)}")


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--ours", required=True, help="SynchroSideBySideDriver built against this package's Synchro")
    parser.add_argument("--official", required=True, help="the same driver built against the other client")
    parser.add_argument("--emulator", required=True, help="a selfdb-emulator binary (release)")
    parser.add_argument("--spec", default=DEFAULT_SPEC, help="the sync spec (default: Spec/Examples/tasks-sync.yaml)")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--rows", type=int, default=10_000)
    parser.add_argument("--calls", type=int, default=50, help="no-op syncNow() calls per run")
    parser.add_argument("--write-repeats", type=int, default=4, help="tracked-write runs per client and round")
    parser.add_argument("--timeout", type=float, default=900, help="seconds one driver run may take")
    parser.add_argument("--json", help="also write every run's results to this file")
    parser.add_argument("--keep", action="store_true", help="keep each round's temporary directory")
    parser.add_argument("--verbose", "-v", action="store_true")
    args = parser.parse_args()
    for name in ("ours", "official", "emulator"):
        path = getattr(args, name)
        if not (os.path.isfile(path) and os.access(path, os.X_OK)):
            parser.error(f"--{name} {path}: not an executable file")
        setattr(args, name, os.path.abspath(path))
    if args.rounds < 1:
        parser.error("--rounds must be at least 1")

    results = {client: {} for client in CLIENTS}
    for number in range(args.rounds):
        run_round(number, args, results)
    if args.json:
        with open(args.json, "w") as out:
            json.dump({"args": {k: v for k, v in vars(args).items()}, "results": results}, out, indent=1, sort_keys=True)
    print_tables(results, args)


if __name__ == "__main__":
    main()

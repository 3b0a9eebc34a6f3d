#!/usr/bin/env python3
"""Uploads and downloads one large file through the SDK (FileTransferDriver) and through the
curl command line, side by side: several rounds, the order alternating, against the emulator
(started here, its memory sampled) or, with --server, a real SelfDB.

  file-transfer.py --driver PATH --emulator PATH [--size-mb 1024] [--rounds 3] [--dir DIR]
  file-transfer.py --driver PATH --server http://127.0.0.1:8000 --api-key test-api-key

Prints one line per transfer and a summary: throughput (MB/s) of each, the SDK's over
curl's, the CPU time (user + system) each client spent per GiB, the SDK process's peak RSS
over its baseline, and the emulator's peak RSS.

--pin puts the server on CPU 0 and both clients on CPU 1 (the emulator, or with --server the
processes --server-pids names, every thread of each), so that on a 2-core machine the client
and the server do not take turns on one core while the other idles.
"""
import argparse, atexit, json, os, resource, socket, subprocess, sys, tempfile, time, urllib.request

parser = argparse.ArgumentParser()
parser.add_argument("--driver", required=True)
parser.add_argument("--emulator")
parser.add_argument("--server")
parser.add_argument("--api-key", default="bench-key")
parser.add_argument("--email", default="admin@example.com")
parser.add_argument("--password", default="Admin123!")
parser.add_argument("--size-mb", type=int, default=1024)
parser.add_argument("--rounds", type=int, default=3)
parser.add_argument("--dir", default=tempfile.gettempdir())
parser.add_argument("--pin", action="store_true")
parser.add_argument("--server-pids", default="", help="with --server and --pin: the server's processes, comma-separated")
args = parser.parse_args()
client_prefix = ["taskset", "-c", "1"] if args.pin else []

work = tempfile.mkdtemp(prefix="file-transfer-", dir=args.dir)
emulator = None
if args.server is None:
    sock = socket.socket(); sock.bind(("127.0.0.1", 0)); port = sock.getsockname()[1]; sock.close()
    emulator = subprocess.Popen((["taskset", "-c", "0"] if args.pin else []) + [args.emulator, "--port", str(port), "--data-dir", os.path.join(work, "server"),
                                 "--api-key", args.api_key, "--password-hash-iterations", "1000", "--quiet"],
                                stdout=subprocess.DEVNULL)
    args.server = f"http://127.0.0.1:{port}"
    # Killed however this script ends, so that no emulator outlives it.
    atexit.register(emulator.kill)
    # A release build's first start reads a large binary from disk: up to a minute.
    deadline = time.monotonic() + 60
    while True:
        try:
            urllib.request.urlopen(urllib.request.Request(args.server + "/system/status", headers={"X-API-Key": args.api_key}), timeout=1)
            break
        except Exception:
            if emulator.poll() is not None: sys.exit(f"the emulator exited ({emulator.returncode})")
            if time.monotonic() > deadline: sys.exit("the emulator did not answer within 60 s")
            time.sleep(0.1)
elif args.pin:
    for pid in filter(None, args.server_pids.split(",")):
        subprocess.run(["taskset", "-a", "-c", "-p", "0", pid], check=True, stdout=subprocess.DEVNULL)

def emulator_kb(field):
    if emulator is None: return None
    for line in open(f"/proc/{emulator.pid}/status"):
        if line.startswith(field + ":"): return int(line.split()[1])

def request(method, path, body=None, token=None):
    headers = {"X-API-Key": args.api_key, "Content-Type": "application/json"}
    if token: headers["Authorization"] = "Bearer " + token
    data = json.dumps(body).encode() if body is not None else None
    with urllib.request.urlopen(urllib.request.Request(args.server + path, data=data, headers=headers, method=method)) as answer:
        return json.loads(answer.read() or b"null")

token = request("POST", "/users/token", {"email": args.email, "password": args.password})["access_token"]
bucket_name = "bench-files"
buckets = request("GET", "/storage/buckets/?search=" + bucket_name, token=token)
bucket = next((b for b in buckets if b["name"] == bucket_name), None) or request("POST", "/storage/buckets/", {"name": bucket_name, "public": False}, token=token)

source = os.path.join(work, "source.bin")
with open(source, "wb") as out:
    for _ in range(args.size_mb):
        out.write(os.urandom(1 << 20))
size = os.path.getsize(source)
emulator_baseline = emulator_kb("VmRSS")

def run_measured(command):
    """Runs command, returning its stdout and the CPU seconds (user + system) it used, the
    whole process's (start-up and, for the driver, sign-in included: a few ms of seconds)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    completed = subprocess.run(command, capture_output=True, text=True)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if completed.returncode != 0: sys.exit(f"{command[0]} failed: {completed.stderr}")
    return completed.stdout, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)

def sdk(mode, path, file):
    output, cpu = run_measured(client_prefix + [args.driver, "--server", args.server, "--api-key", args.api_key, "--email", args.email,
                                                "--password", args.password, "--bucket", bucket_name, "--mode", mode, "--file", file, "--path", path])
    result = json.loads(output.strip().splitlines()[-1])
    result["cpu"] = cpu
    return result

def curl(mode, path, file):
    # No `Expect: 100-continue` (the SDK sends none; curl would wait a second for a 100 the
    # server never sends); curl's own transfer time, as the driver times only the transfer.
    common = ["curl", "-sS", "-f", "-w", "%{time_total}", "-H", "Expect:", "-H", "X-API-Key: " + args.api_key, "-H", "Authorization: Bearer " + token]
    if mode == "upload":
        url = f"{args.server}/storage/files/upload?bucket_id={bucket['id']}&filename={os.path.basename(path)}&path={path}"
        # -T streams the file (--data-binary @file would read it whole); -X POST keeps the method.
        output, cpu = run_measured(client_prefix + common + ["-o", "/dev/null", "-X", "POST", "-T", file, url])
    else:
        output, cpu = run_measured(client_prefix + common + ["-o", file, f"{args.server}/storage/files/download/{bucket_name}/{path}"])
    return {"seconds": float(output.strip()), "cpu": cpu}

results = {("sdk", "upload"): [], ("curl", "upload"): [], ("sdk", "download"): [], ("curl", "download"): []}
cpu = {key: [] for key in results}
rss = []
for round in range(args.rounds):
    order = ["sdk", "curl"] if round % 2 == 0 else ["curl", "sdk"]
    for file in request("GET", f"/storage/files/?bucket_id={bucket['id']}&page_size=100", token=token)["files"]:
        # The last round's files, gone: the disk (or tmpfs) holds one round at a time.
        urllib.request.urlopen(urllib.request.Request(args.server + "/storage/files/" + file["id"], method="DELETE",
                                                      headers={"X-API-Key": args.api_key, "Authorization": "Bearer " + token}))
    for mode in ["upload", "download"]:
        for who in order:
            path = f"r{round}-{who}-{os.getpid()}.bin"
            target = os.path.join(work, f"{who}-download.bin")
            run = sdk if who == "sdk" else curl
            # The last transfer's gigabyte written back to disk first: otherwise the second of a
            # pair pays for the first's writeback (seen as a 4x swing with the order).
            os.sync()
            time.sleep(1)
            if mode == "upload":
                result = run("upload", path, source)
            else:
                # Both download the same file, read once untimed first: what is compared is the
                # clients, not which file the server's cache holds.
                shared = f"r{round}-sdk-{os.getpid()}.bin"
                if who == order[0]:
                    curl("download", shared, target)
                    os.remove(target)
                    os.sync()
                result = run("download", shared, target)
                if os.path.getsize(target) != size: sys.exit(f"{who} download has {os.path.getsize(target)} bytes, not {size}")
                os.remove(target)
            seconds = result["seconds"]
            results[(who, mode)].append(seconds)
            cpu[(who, mode)].append(result["cpu"])
            extra = ""
            if who == "sdk":
                grew = (result["peak_rss_kb"] - result["baseline_rss_kb"]) / 1024
                rss.append(grew)
                extra = f" rss +{grew:.1f} MB (baseline {result['baseline_rss_kb'] / 1024:.1f} MB)"
            print(f"round {round + 1} {mode:8} {who:4} {size / seconds / 1e6:8.1f} MB/s, cpu {result['cpu'] / size * (1 << 30):.2f} s/GiB{extra}", flush=True)

def median(values): return sorted(values)[len(values) // 2]
def geometric_mean(values):
    product = 1.0
    for value in values: product *= value
    return product ** (1 / len(values))

print(f"\n{args.size_mb} MiB, {args.rounds} rounds, {args.server}{', pinned' if args.pin else ''}")
for mode in ["upload", "download"]:
    sdk_rate = [size / s / 1e6 for s in results[("sdk", mode)]]
    curl_rate = [size / s / 1e6 for s in results[("curl", mode)]]
    ratios = [a / b for a, b in zip(sdk_rate, curl_rate)]
    print(f"{mode:8}: SDK median {median(sdk_rate):.1f} MB/s, curl {median(curl_rate):.1f} MB/s, "
          f"ratio per round {', '.join(f'{r:.2f}' for r in ratios)} (median {median(ratios):.2f}, geometric mean {geometric_mean(ratios):.2f})")
    gib = size / (1 << 30)
    sdk_cpu = [c / gib for c in cpu[("sdk", mode)]]
    curl_cpu = [c / gib for c in cpu[("curl", mode)]]
    print(f"{'':8}  CPU per GiB: SDK median {median(sdk_cpu):.2f} s, curl {median(curl_cpu):.2f} s "
          f"(SDK/curl per round {', '.join(f'{a / b:.2f}' for a, b in zip(sdk_cpu, curl_cpu))})")
print(f"SDK peak RSS over baseline: max {max(rss):.1f} MB")
if emulator is not None:
    print(f"emulator RSS: {emulator_baseline / 1024:.1f} MB after start, peak {emulator_kb('VmHWM') / 1024:.1f} MB over the run")
    emulator.terminate(); emulator.wait()
subprocess.run(["rm", "-rf", work])

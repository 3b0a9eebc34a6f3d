#!/usr/bin/env python3
"""Uploads and downloads one large file through the SDK (FileTransferDriver) and through the
curl command line, side by side: several rounds, the order alternating, against the emulator
(started here, its memory sampled) or, with --server, a real SelfDB.

  file-transfer.py --driver PATH --emulator PATH [--size-mb 1024] [--rounds 3] [--dir DIR]
  file-transfer.py --driver PATH --server http://127.0.0.1:8000 --api-key test-api-key

Prints one line per transfer and a summary: throughput (MB/s) of each, the SDK's over
curl's, the SDK process's peak RSS over its baseline, and the emulator's peak RSS.
"""
import argparse, json, os, socket, subprocess, sys, tempfile, time, urllib.request

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
args = parser.parse_args()

work = tempfile.mkdtemp(prefix="file-transfer-", dir=args.dir)
emulator = None
if args.server is None:
    sock = socket.socket(); sock.bind(("127.0.0.1", 0)); port = sock.getsockname()[1]; sock.close()
    emulator = subprocess.Popen([args.emulator, "--port", str(port), "--data-dir", os.path.join(work, "server"),
                                 "--api-key", args.api_key, "--password-hash-iterations", "1000", "--quiet"],
                                stdout=subprocess.DEVNULL)
    args.server = f"http://127.0.0.1:{port}"
    for _ in range(200):
        try:
            urllib.request.urlopen(urllib.request.Request(args.server + "/system/status", headers={"X-API-Key": args.api_key}), timeout=1)
            break
        except Exception:
            time.sleep(0.1)

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

def sdk(mode, path, file):
    started = time.monotonic()
    output = subprocess.run([args.driver, "--server", args.server, "--api-key", args.api_key, "--email", args.email,
                             "--password", args.password, "--bucket", bucket_name, "--mode", mode, "--file", file, "--path", path],
                            capture_output=True, text=True, check=True).stdout
    result = json.loads(output.strip().splitlines()[-1])
    result["wall"] = time.monotonic() - started
    return result

def curl(mode, path, file):
    # No `Expect: 100-continue` (the SDK sends none; curl would wait a second for a 100 the
    # server never sends); curl's own transfer time, as the driver times only the transfer.
    common = ["curl", "-sS", "-f", "-w", "%{time_total}", "-H", "Expect:", "-H", "X-API-Key: " + args.api_key, "-H", "Authorization: Bearer " + token]
    if mode == "upload":
        url = f"{args.server}/storage/files/upload?bucket_id={bucket['id']}&filename={os.path.basename(path)}&path={path}"
        # -T streams the file (--data-binary @file would read it whole); -X POST keeps the method.
        output = subprocess.run(common + ["-o", "/dev/null", "-X", "POST", "-T", file, url], check=True, capture_output=True, text=True).stdout
    else:
        output = subprocess.run(common + ["-o", file, f"{args.server}/storage/files/download/{bucket_name}/{path}"], check=True, capture_output=True, text=True).stdout
    return {"seconds": float(output.strip())}

results = {("sdk", "upload"): [], ("curl", "upload"): [], ("sdk", "download"): [], ("curl", "download"): []}
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
            if mode == "download":
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
            extra = ""
            if who == "sdk":
                grew = (result["peak_rss_kb"] - result["baseline_rss_kb"]) / 1024
                rss.append(grew)
                extra = f" rss +{grew:.1f} MB (baseline {result['baseline_rss_kb'] / 1024:.1f} MB)"
            print(f"round {round + 1} {mode:8} {who:4} {size / seconds / 1e6:8.1f} MB/s{extra}", flush=True)

print(f"\n{args.size_mb} MiB, {args.rounds} rounds, {args.server}")
for mode in ["upload", "download"]:
    sdk_rate = [size / s / 1e6 for s in results[("sdk", mode)]]
    curl_rate = [size / s / 1e6 for s in results[("curl", mode)]]
    ratios = [a / b for a, b in zip(sdk_rate, curl_rate)]
    geometric = 1.0
    for ratio in ratios: geometric *= ratio
    geometric **= 1 / len(ratios)
    print(f"{mode:8}: SDK median {sorted(sdk_rate)[len(sdk_rate) // 2]:.1f} MB/s, curl {sorted(curl_rate)[len(curl_rate) // 2]:.1f} MB/s, "
          f"ratio per round {', '.join(f'{r:.2f}' for r in ratios)} (median {sorted(ratios)[len(ratios) // 2]:.2f}, geometric mean {geometric:.2f})")
print(f"SDK peak RSS over baseline: max {max(rss):.1f} MB")
if emulator is not None:
    print(f"emulator RSS: {emulator_baseline / 1024:.1f} MB after start, peak {emulator_kb('VmHWM') / 1024:.1f} MB over the run")
    emulator.terminate(); emulator.wait()
subprocess.run(["rm", "-rf", work])

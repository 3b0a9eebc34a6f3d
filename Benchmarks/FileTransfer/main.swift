// File-transfer benchmark driver: one upload or download per invocation through the SDK's
// streaming storage API, one JSON line on stdout with its size, duration and memory.
// Benchmarks/Scripts/file-transfer.py runs it side by side with the curl command line.
//
//   FileTransferDriver --server URL --api-key KEY --email E --password P --bucket NAME
//       --mode upload|download --file PATH --path OBJECT_PATH [--transport curl|urlsession]
//
// upload    sends PATH as OBJECT_PATH into the bucket (made if missing)
// download  writes OBJECT_PATH of the bucket to PATH
//
// Memory is read from /proc/self/status: VmRSS just before the transfer (the baseline, after
// sign-in) and VmHWM (the process's peak) after it.

import Foundation
import SelfDB
import SelfDBRuntime

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data("driver: \(message)\n".utf8))
    exit(1)
}

func argument(_ name: String, _ arguments: [String]) -> String? {
    guard let index = arguments.firstIndex(of: "--\(name)"), index + 1 < arguments.count else { return nil }
    return arguments[index + 1]
}

/// A field of /proc/self/status in kB (0 where there is none).
func memoryKB(_ field: String) -> Int {
    guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return 0 }
    for line in status.split(separator: "\n") where line.hasPrefix("\(field):") {
        return Int(line.split(separator: " ", omittingEmptySubsequences: true).dropFirst().first ?? "") ?? 0
    }
    return 0
}

let arguments = CommandLine.arguments
guard let server = argument("server", arguments).flatMap(URL.init(string:)), let apiKey = argument("api-key", arguments),
    let email = argument("email", arguments), let password = argument("password", arguments),
    let bucketName = argument("bucket", arguments), let mode = argument("mode", arguments), let file = argument("file", arguments),
    let objectPath = argument("path", arguments)
else { fail("usage: --server URL --api-key KEY --email E --password P --bucket NAME --mode upload|download --file PATH --path OBJECT_PATH") }
let transport: any HTTPTransport = argument("transport", arguments) == "urlsession" ? URLSessionTransport() : platformHTTPTransport()

let selfdb = SelfDB(baseURL: server, apiKey: apiKey, transport: transport, retryPolicy: .none)
do {
    try await selfdb.auth.login(email: email, password: password)
    let buckets = try await selfdb.storage.buckets.list(search: bucketName)
    let existing = buckets.first { $0.name == bucketName }
    let bucket: BucketResponse
    if let existing {
        bucket = existing
    } else {
        bucket = try await selfdb.storage.buckets.create(payload: BucketCreate(name: bucketName, public: false))
    }
    let baseline = memoryKB("VmRSS")
    let started = ContinuousClock.now
    let bytes: Int64
    switch mode {
    case "upload":
        bytes = try await selfdb.storage.files.upload(bucket.id, filename: URL(fileURLWithPath: objectPath).lastPathComponent, fileURL: URL(fileURLWithPath: file), path: objectPath).size
    case "download":
        bytes = try await selfdb.storage.files.download(bucketName: bucketName, path: objectPath, to: URL(fileURLWithPath: file))
    default:
        fail("unknown mode \(mode)")
    }
    let elapsed = ContinuousClock.now - started
    let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
    print(#"{"mode":"\#(mode)","bytes":\#(bytes),"seconds":\#(seconds),"baseline_rss_kb":\#(baseline),"peak_rss_kb":\#(memoryKB("VmHWM"))}"#)
} catch {
    fail("\(error)")
}

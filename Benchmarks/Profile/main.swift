// A loop over one cache operation for `perf record` (the benchmark harness runs its
// benchmarks in a child process, which profilers follow poorly):
//   swift build -c release --product CacheProfile && perf record -g .build/release/CacheProfile read|write
import Foundation
import SelfDB
import SelfDBCache
let rows = (0..<1_000).map { index in
    CachedRow(id: UUID(), title: "row \(index)", body: "some text for row \(index)", rank: index, done: index.isMultiple(of: 2), createdAt: Date(), userId: UUID())
}
let path = FileManager.default.temporaryDirectory.appendingPathComponent("selfdb-cache-prof-\(UUID().uuidString).sqlite").path
let cache = try SelfDBCache(selfdb: SelfDB(baseUrl: "http://127.0.0.1:9", apiKey: "unused"), path: path)
let mode = CommandLine.arguments.dropFirst().first ?? "read"
try cache.savePage(rows, into: "bench")

/// The best of 200 calls of the operation.
func measure() throws -> Double {
    var best = Double.infinity
    for _ in 0..<200 {
        let start = DispatchTime.now().uptimeNanoseconds
        if mode == "read" { _ = try cache.items(CachedRow.self, view: "bench") } else { try cache.savePage(rows, into: "bench") }
        best = min(best, Double(DispatchTime.now().uptimeNanoseconds - start) / 1e6)
    }
    return best
}

print(mode, "main thread: best", try measure(), "ms")
// The benchmark harness runs on a Dispatch worker; glibc gives other threads other arenas.
let done = DispatchSemaphore(value: 0)
DispatchQueue.global().async {
    print(mode, "worker thread: best", (try? measure()) ?? -1, "ms")
    done.signal()
}
done.wait()

import Benchmark
import Foundation
import SelfDB
import SelfDBCache

/// Reading a cached view of 1,000 typed items (target < 5 ms) and writing a 1,000-row page
/// into a view (target < 20 ms), on a real SQLite file. No network is involved: the client
/// points at a port nothing listens on and is never called.
let benchmarks: @Sendable () -> Void = {
    Benchmark.defaultConfiguration = .init(metrics: [.wallClock], maxDuration: .seconds(5), maxIterations: 500)

    let rows = (0..<1_000).map { index in
        CachedRow(id: UUID(), title: "row \(index)", body: "some text for row \(index)", rank: index, done: index.isMultiple(of: 2), createdAt: Date(), userId: UUID())
    }

    Benchmark("Read a cached view of 1,000 items") { benchmark in
        guard let cache = try? CacheFile.make() else { return }
        try cache.savePage(rows, into: "bench")
        benchmark.startMeasurement()
        for _ in benchmark.scaledIterations {
            blackHole(try cache.items(CachedRow.self, view: "bench"))
        }
    }

    // A refresh of a page the server did not change: the commonest write.
    Benchmark("Write a 1,000-row page into a view") { benchmark in
        guard let cache = try? CacheFile.make() else { return }
        benchmark.startMeasurement()
        for _ in benchmark.scaledIterations {
            try cache.savePage(rows, into: "bench")
        }
    }

    // The worst case: every row changed since the last write.
    let edited = rows.map { row in
        var copy = row
        copy.title += " (edited)"
        return copy
    }
    Benchmark("Write a 1,000-row page of changed rows into a view") { benchmark in
        guard let cache = try? CacheFile.make() else { return }
        benchmark.startMeasurement()
        for iteration in benchmark.scaledIterations {
            try cache.savePage(iteration.isMultiple(of: 2) ? edited : rows, into: "bench")
        }
    }
}

/// A cache in a fresh temporary file.
enum CacheFile {
    static func make() throws -> SelfDBCache {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("selfdb-cache-bench-\(UUID().uuidString).sqlite").path
        let selfdb = SelfDB(baseUrl: "http://127.0.0.1:9", apiKey: "unused")
        return try SelfDBCache(selfdb: selfdb, path: path)
    }
}

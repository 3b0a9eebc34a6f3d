import Benchmark
import Foundation
import SelfDB
import SelfDBCache

/// Reading a cached view of 1,000 typed items (target < 5 ms) and writing a 1,000-row page
/// into a view (target < 20 ms), on a real SQLite file. No network is involved: the client
/// points at a port nothing listens on and is never called.
///
/// The harness calls a benchmark's closure once per sample, so the caches are made outside
/// the closures: otherwise every sample would time the first read of a new connection right
/// after a write (statements not yet prepared, the rows still in the WAL), which is what
/// "first read after opening" measures on its own.
let benchmarks: @Sendable () -> Void = {
    Benchmark.defaultConfiguration = .init(metrics: [.wallClock], maxDuration: .seconds(5), maxIterations: 500)

    let rows = (0..<1_000).map { index in
        CachedRow(id: UUID(), title: "row \(index)", body: "some text for row \(index)", rank: index, done: index.isMultiple(of: 2), createdAt: Date(), userId: UUID())
    }
    let edited = rows.map { row in
        var copy = row
        copy.title += " (edited)"
        return copy
    }
    let reading = try? CacheFile.make(with: rows)
    let writing = try? CacheFile.make(with: rows)
    let closedPath = try? CacheFile.closedFile(with: rows)

    Benchmark("Read a cached view of 1,000 items") { benchmark in
        guard let cache = reading?.cache else { return }
        for _ in benchmark.scaledIterations {
            blackHole(try cache.items(CachedRow.self, view: "bench"))
        }
    }

    // App launch: open the file and read the view once.
    Benchmark("First read of a 1,000-item view after opening the file") { benchmark in
        guard let path = closedPath else { return }
        for _ in benchmark.scaledIterations {
            let cache = try SelfDBCache(selfdb: CacheFile.client, path: path)
            blackHole(try cache.items(CachedRow.self, view: "bench"))
        }
    }

    // A refresh of a page the server did not change: the commonest write.
    Benchmark("Write a 1,000-row page into a view") { benchmark in
        guard let cache = writing?.cache else { return }
        for _ in benchmark.scaledIterations {
            try cache.savePage(rows, into: "bench")
        }
    }

    // The worst case: every row changed since the last write.
    Benchmark("Write a 1,000-row page of changed rows into a view") { benchmark in
        guard let cache = writing?.cache else { return }
        for iteration in benchmark.scaledIterations {
            try cache.savePage(iteration.isMultiple(of: 2) ? edited : rows, into: "bench")
        }
    }
}

/// Caches in temporary files.
enum CacheFile {
    static let client = SelfDB(baseUrl: "http://127.0.0.1:9", apiKey: "unused")

    static func path() -> String {
        FileManager.default.temporaryDirectory.appendingPathComponent("selfdb-cache-bench-\(UUID().uuidString).sqlite").path
    }

    /// An open cache whose view "bench" holds `rows`.
    static func make(with rows: [CachedRow]) throws -> (cache: SelfDBCache, path: String) {
        let path = path()
        let cache = try SelfDBCache(selfdb: client, path: path)
        try cache.savePage(rows, into: "bench")
        return (cache, path)
    }

    /// A cache file whose view "bench" holds `rows`, closed (and so checkpointed).
    static func closedFile(with rows: [CachedRow]) throws -> String {
        try make(with: rows).path
    }
}

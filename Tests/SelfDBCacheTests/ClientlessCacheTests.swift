import Foundation
import Logging
import SelfDB
import SelfDBCache
import SelfDBTestSupport
import Testing

/// A cache opened without a SelfDB client (what CachedData runs on): the app's own loaders
/// and mutations work, table models are refused with a typed error, and the app's own errors
/// reach the caller as thrown.
@Suite("a cache without a client")
@MainActor
struct ClientlessCacheTests {
    struct Refusal: Error, Equatable {}

    static func openCache() throws -> SelfDBCache {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("clientless-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        return try SelfDBCache(path: folder.appendingPathComponent("cache.sqlite").path)
    }

    @Test func tableModelsAreRefusedWithATypedError() async throws {
        let cache = try Self.openCache()
        #expect(cache.selfdb == nil)
        let fetcher = cache.fetcher(Chore.self, .all(view: "all"))
        await #expect {
            try await fetcher.setup()
        } throws: { error in
            guard case .invalidArgument(let text)? = error as? CacheError else { return false }
            return text.contains("needs a SelfDB client")
        }
        await #expect(throws: CacheError.self) {
            try await cache.insert(Chore(id: UUID(), title: "no client", rank: 1, userId: UUID()), into: "all")
        }
        #expect(try cache.pendingMutationCount() == 0)
    }

    @Test func theAppsOwnErrorsReachTheCallerAsThrown() async throws {
        let cache = try Self.openCache()
        let page = cache.fetcher(BucketResponse.self, .cursor(view: "buckets") { _, _ in throw Refusal() })
        await #expect {
            try await page.setup()
        } throws: { error in
            guard case .loaderFailed(let underlying)? = error as? CacheError else { return false }
            return underlying is Refusal
        }
        await cache.register(BucketResponse.self, mutations: CacheMutations(insert: { _ in throw Refusal() }))
        let bucket = BucketResponse(id: UUID(), name: "refused", public: false, createdAt: Date())
        await #expect {
            try await cache.insert(bucket, into: ["a", "b"], at: .append)
        } throws: { error in
            guard case .refused(let underlying)? = error as? CacheError else { return false }
            return underlying is Refusal
        }
        #expect(try cache.items(BucketResponse.self, view: "a").isEmpty, "rolled back out of every view")
        #expect(try cache.items(BucketResponse.self, view: "b").isEmpty)
    }

    @Test func aCursorThatDoesNotMoveFailsAnAllPagesLoad() async throws {
        let cache = try Self.openCache()
        let stuck = cache.fetcher(
            BucketResponse.self,
            .cursor(view: "stuck", allPages: true) { _, _ in
                CursorPage(rows: [], next: "same", hasNext: true)
            }
        )
        await #expect {
            try await stuck.setup()
        } throws: { error in
            guard case .fetchFailed(.invalidResponse(let text))? = error as? CacheError else { return false }
            return text.contains("without moving the cursor")
        }
    }

    @Test func theQueueLogsReplaysAndRollbacksWithoutContents() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("clientless-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let lines = LogLines()
        let cache = try SelfDBCache(path: folder.appendingPathComponent("cache.sqlite").path, logger: .capturing(lines))
        let offline = Locked(true)
        await cache.register(
            BucketResponse.self,
            mutations: CacheMutations(
                insert: { bucket in
                    if offline.withLock({ $0 }) { throw URLError(.notConnectedToInternet) }
                    if bucket.name == "refused" { throw Refusal() }
                    return nil
                })
        )
        let kept = BucketResponse(id: UUID(), name: "kept-secret-name", public: false, createdAt: Date())
        let refused = BucketResponse(id: UUID(), name: "refused", public: false, createdAt: Date())
        #expect(try await cache.insert(kept, into: "a") == .pending)
        #expect(try await cache.insert(refused, into: "a") == .pending)
        offline.withLock { $0 = false }
        let report = await cache.synchronize()
        #expect(report.sent == 1 && report.rejected.count == 1)
        let trace = lines.all
        #expect(trace.contains { $0.contains("cache: sending 2 queued mutations") })
        #expect(trace.contains { $0.contains("still queued 1; stopped: the server is unreachable") })
        #expect(trace.contains { $0.hasPrefix("warning") && $0.contains("insert of model:BucketResponse \(refused.id.uuidString) refused; rolled back") })
        #expect(trace.contains { $0.contains("sent 1, refused 1, still queued 0") })
        #expect(!trace.contains { $0.contains("kept-secret-name") }, "item contents never reach the log")
    }
}

import CachedData
import CachedDataTestSupport
import Foundation

/// One test's memo server and cache file, with helpers to open fetchers on them.
struct MemoFixture {
    let server: MemoServer
    let folder: URL
    let cache: CACache
    let handlers: CAHandlers

    /// A server with `count` memos ("m1"… in order) and a cache whose retry timer waits
    /// `retry` (long by default, so only the tests about it see it fire).
    init(memos count: Int = 3, retry: Duration = .seconds(3600)) throws {
        server = MemoServer(memos: (0..<count).map { "memo \($0 + 1)" })
        folder = try temporaryFolder()
        cache = try CACache(databasePath: folder.appendingPathComponent("cache.sqlite").path, retryInterval: retry)
        handlers = CAHandlers(cache: cache)
    }

    /// The same file opened again, as after a restart.
    func reopened(retry: Duration = .seconds(3600)) throws -> (CACache, CAHandlers) {
        let cache = try CACache(databasePath: folder.appendingPathComponent("cache.sqlite").path, retryInterval: retry)
        return (cache, CAHandlers(cache: cache))
    }

    func fetcher(_ view: String = "memos", allPages: Bool = false, pageSize: Int = 2, cache: CACache? = nil, filter: (@Sendable (Memo) -> Bool)? = nil) -> CAFetcher<Memo> {
        CAFetcher(.fetchAll(viewId: view, allPages: allPages), itemType: Memo.self, params: Memo.Params(server: server.name, pageSize: pageSize), itemFilter: filter, cache: cache ?? self.cache)
    }

    /// What the cache file holds for a view right now, read by a fresh cache-only fetcher.
    func stored(_ view: String = "memos") async throws -> [Memo] {
        let reader = fetcher(view)
        try await reader.setup(cacheOnly: true)
        return reader.items
    }

    func one(_ id: String, cache: CACache? = nil) -> CAFetcher<Memo> {
        CAFetcher(.fetchOne(itemId: id), itemType: Memo.self, params: Memo.Params(server: server.name), cache: cache ?? self.cache)
    }
}

extension CAFetcher where Item == Memo {
    var ids: [String] { items.map(\.id) }
    var states: [CAItemState] { items.map(\.caState) }
}

import SelfDBCache

/// Optimistic mutations of ``CAMutableItem``s: each handler changes the cache at once (every
/// fetcher showing the item updates), queues the mutation durably, then sends it through the
/// item's own `insert`/`update`/`delete`.
///
/// - The server accepts: the item's state goes back to `.normal`; the action runs.
/// - The server cannot be reached (the item threw `.caught` of a transport error): the
///   handler returns normally, the item keeps its pending state, and the mutation is sent
///   again by itself — after the next fetch that reaches the server, or on a retry timer —
///   in order, also after the app restarts.
/// - The server refuses (`.failed`, or any other error): the cache is rolled back exactly
///   (the previous item, at its previous places) and the handler throws the item's error.
///
/// Reach them as `CAHandlers.shared`, or through swift-dependencies with
/// `@Dependency(\.caHandlers)` after importing `CachedDataDependencies`.
public struct CAHandlers: Sendable {
    private let explicitCache: CACache?

    /// The handlers of the configured cache (`CachedData.configure(databasePath:)`).
    public static var shared: CAHandlers { CAHandlers(explicitCache: nil) }

    /// The handlers of `cache`.
    public init(cache: CACache) {
        explicitCache = cache
    }

    private init(explicitCache: CACache?) {
        self.explicitCache = explicitCache
    }

    private func cache() throws(CAMutationError) -> CACache {
        if let explicitCache { return explicitCache }
        do { return try CachedData.shared() } catch { throw .caught(error) }
    }

    /// Inserts `item`, shown at once (state `.inserting`) where `action` places it.
    public func insert<Item: CAMutableItem>(_ item: Item, action: CAInsertViewAction) async throws(CAMutationError) {
        let cache = try cache()
        await cache.register(Item.self)
        let views: [String]
        switch (action.position, action.viewId) {
        case (nil, _): views = []
        case (_, let view?): views = [view]
        case (_, nil): views = cache.engine.liveViews(of: CacheEntry<Item>.self)
        }
        try await run(cache) { try await cache.engine.insert(CacheEntry(item), into: views, at: action.position ?? .prepend) }
    }

    /// Updates `item` everywhere it is shown (state `.updating`), then runs `action` once
    /// the server confirmed it.
    public func update<Item: CAMutableItem>(_ item: Item, action: CAUpdateViewAction) async throws(CAMutationError) {
        let cache = try cache()
        await cache.register(Item.self)
        let confirmed = try await run(cache) { try await cache.engine.update(CacheEntry(item)) }
        guard confirmed, action.kind == .refresh else { return }
        reload(forType: Item.self, viewId: action.viewId)
    }

    /// Deletes `item`: it stays listed with state `.deleting` until the server confirms,
    /// then leaves every view.
    public func delete<Item: CAMutableItem>(_ item: Item) async throws(CAMutationError) {
        let cache = try cache()
        await cache.register(Item.self)
        try await run(cache) { try await cache.engine.delete(CacheEntry(item)) }
    }

    /// Starts refetching the live fetchers of `type`: the one of view `viewId`, or all of
    /// them if nil. Returns at once; the fetchers update when their loads end.
    public func reload<Item: CAItem>(forType type: Item.Type, viewId: String? = nil) {
        guard let cache = try? cache() else { return }
        if let viewId {
            cache.engine.reload(CacheEntry<Item>.self, only: viewId)
        } else {
            cache.engine.reload(CacheEntry<Item>.self)
        }
    }

    /// Runs a mutation; true if the server confirmed it, false if it is pending.
    @discardableResult
    private func run<Item: CAItem>(_ cache: CACache, _ mutation: () async throws -> MutationOutcome<CacheEntry<Item>>) async throws(CAMutationError) -> Bool {
        do {
            let outcome = try await mutation()
            if !outcome.isConfirmed { cache.scheduleRetry() }
            return outcome.isConfirmed
        } catch {
            throw MutationBridge.handlerError(error)
        }
    }
}

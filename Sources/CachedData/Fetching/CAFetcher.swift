import Foundation
import Observation
import SelfDBCache
import SelfDBRuntime

/// Fills a list (or one item) of ``CAItem``s from the cache first and then from the item
/// type's `fetch(params:)`, keeps it current as the cache changes (mutations, other views'
/// loads), and pages through the server's items.
///
/// ```swift
/// let fetcher = CAFetcher(.fetchAll(viewId: "feed", allPages: false), itemType: Post.self, params: Post.Params())
/// try await fetcher.setup()      // cached items at once, then the first page
/// try await fetcher.load()       // the next page
/// ```
///
/// Observable (the Observation framework's `Observable`): SwiftUI views reading `items`,
/// `state` or `hasNext` update when they change. Unlike the original, a fetcher is `Sendable`
/// and can be read and driven from any isolation — a view model on the main actor or not;
/// the loading itself runs on the engine's main-actor fetcher (`SelfDBCache.CachedFetcher`).
public final class CAFetcher<Item: CAItem>: Observable, Sendable {
    /// What is fetched.
    public let fetchType: CAFetchType
    /// The parameters of the first page (later pages add their cursor with `setEndCursor`).
    public let params: Item.Params

    private let itemFilter: (@Sendable (Item) -> Bool)?
    private let explicitCache: CACache?
    private let registrar = ObservationRegistrar()
    private let mirror = Locked(Mirror())
    private let engine = Locked<Engine?>(nil)
    private let watchers = Locked<[UUID: AsyncStream<CAFetchedValue<Item>>.Continuation]>([:])

    /// The engine fetcher's state as last seen, readable from any thread.
    private struct Mirror {
        var value: CAFetchedValue<Item> = .initial
        var state: CAFetcherState = .initializing
        var hasNext = false
    }

    /// The engine fetcher and its cache, made by the first `setup()`.
    private struct Engine: Sendable {
        let cache: CACache
        let fetcher: CachedFetcher<CacheEntry<Item>>
    }

    /// A fetcher; nothing is read until ``setup(cacheOnly:)``.
    ///
    /// - Parameters:
    ///   - fetchType: the view (`.fetchAll`) or single item (`.fetchOne`) to show.
    ///   - itemType: the item type, whose `fetch` loads the pages.
    ///   - params: passed to every `fetch` of this fetcher (the user whose feed it is, …).
    ///   - itemFilter: hides items that fail it (the cache keeps them).
    ///   - cache: the cache to use; the configured one (`CachedData.configure(databasePath:)`)
    ///     if nil.
    public init(_ fetchType: CAFetchType, itemType: Item.Type, params: Item.Params, itemFilter: (@Sendable (Item) -> Bool)? = nil, cache: CACache? = nil) {
        self.fetchType = fetchType
        self.params = params
        self.itemFilter = itemFilter
        self.explicitCache = cache
    }

    deinit {
        watchers.withLock { watchers in
            for continuation in watchers.values { continuation.finish() }
        }
    }

    // MARK: What the fetcher holds

    /// Nothing yet, an empty result, or the items.
    public var fetchedValue: CAFetchedValue<Item> {
        registrar.access(self, keyPath: \.fetchedValue)
        return mirror.withLock { $0.value }
    }

    /// The items, in view order, each with its `caState` (filters applied).
    public var items: [Item] { fetchedValue.items }
    /// The item of a `.fetchOne` fetcher, or an empty `Item()` while it is not known.
    public var item: Item { optionalItem ?? Item() }
    /// The item of a `.fetchOne` fetcher (the first item of a list), or nil.
    public var optionalItem: Item? { items.first }

    /// Whether the server has more pages.
    public var hasNext: Bool {
        registrar.access(self, keyPath: \.hasNext)
        return mirror.withLock { $0.hasNext }
    }

    /// Loading activity.
    public var state: CAFetcherState {
        registrar.access(self, keyPath: \.state)
        return mirror.withLock { $0.state }
    }

    /// Whether the first load has ended (`state` is `.idle` or `.loading`).
    public var initialFetched: Bool { state >= .idle }

    /// The fetched value now and after every change, for as long as it is iterated.
    public var asyncFetchedValue: AsyncStream<CAFetchedValue<Item>> {
        let (stream, continuation) = AsyncStream.makeStream(of: CAFetchedValue<Item>.self, bufferingPolicy: .bufferingNewest(16))
        let id = UUID()
        // Under the mirror's lock, so that no change falls between the first value and the
        // registration.
        mirror.withLock { mirror in
            continuation.yield(mirror.value)
            watchers.withLock { $0[id] = continuation }
        }
        continuation.onTermination = { [weak self] _ in self?.watchers.withLock { _ = $0.removeValue(forKey: id) } }
        return stream
    }

    // MARK: Loading

    /// Shows what the cache holds, starts following cache changes, then (unless `cacheOnly`)
    /// fetches the first page. A fetch that reaches the server also sends the mutations
    /// waiting in the queue.
    ///
    /// - Throws: `CAFetchError.offline` if the server could not be reached, `.caught` with
    ///   the item's error if its fetch failed (the cached items stay shown in both cases),
    ///   `.invalidArgument` for a bad view id, `.storage` if the cache cannot be read.
    public func setup(cacheOnly: Bool = false) async throws(CAFetchError) {
        let engine = try await engine()
        await engine.cache.register(Item.self)
        try await run(engine, network: !cacheOnly) { try await engine.fetcher.setup(cacheOnly: cacheOnly) }
    }

    /// Fetches the next page (all pages for `allPages`), or sets the fetcher up if it was not.
    /// While a load runs, waits for it instead of starting another.
    public func load() async throws(CAFetchError) {
        let engine = try await engine()
        guard await engine.fetcher.state != .initializing else { return try await setup() }
        try await run(engine, network: true) { try await engine.fetcher.load() }
    }

    /// Starts over from the first page, cancelling a load in flight (which then throws
    /// `CAFetchError.cancelled`); the items stay shown until the new first page replaces them.
    public func reload() async throws(CAFetchError) {
        let engine = try await engine()
        guard await engine.fetcher.state != .initializing else { return try await setup() }
        try await run(engine, network: true) { try await engine.fetcher.reload() }
    }

    /// Runs an engine load and lets the cache's queue know how the server did.
    private func run(_ engine: Engine, network: Bool, _ load: () async throws -> Void) async throws(CAFetchError) {
        do {
            try await load()
        } catch {
            let failure = CAFetchError(error)
            if case .offline = failure { engine.cache.scheduleRetry() }
            throw failure
        }
        if network { engine.cache.serverAnswered() }
    }

    // MARK: Engine

    private func engine() async throws(CAFetchError) -> Engine {
        if let engine = engine.withLock({ $0 }) { return engine }
        let cache: CACache
        if let explicitCache { cache = explicitCache } else { cache = try CachedData.shared() }
        let strategy = CAFetchStrategy<Item>.make(fetchType, params: params)
        let filter = itemFilter.map { filter in { @Sendable (entry: CacheEntry<Item>) in filter(entry.item) } }
        let fetcher = await MainActor.run {
            let fetcher = cache.engine.fetcher(CacheEntry<Item>.self, strategy, itemFilter: filter)
            fetcher.onChange = { [weak self] fetcher in self?.mirror(fetcher) }
            return fetcher
        }
        let made = Engine(cache: cache, fetcher: fetcher)
        return engine.withLock { current in
            if let current { return current }
            current = made
            return made
        }
    }

    /// Takes the engine fetcher's new state, telling observers what changed.
    @MainActor
    private func mirror(_ fetcher: CachedFetcher<CacheEntry<Item>>) {
        let value: CAFetchedValue<Item> =
            switch fetcher.value {
            case .initial: .initial
            case .empty: .empty
            case .fetched(let entries): .fetched(entries.map(CacheEntry.item))
            }
        let state = CAFetcherState(fetcher.state)
        let old = mirror.withLock { $0 }
        if old.value != value {
            registrar.withMutation(of: self, keyPath: \.fetchedValue) {
                mirror.withLock { mirror in
                    mirror.value = value
                    for continuation in watchers.withLock({ Array($0.values) }) { continuation.yield(value) }
                }
            }
        }
        if old.state != state {
            registrar.withMutation(of: self, keyPath: \.state) { mirror.withLock { $0.state = state } }
        }
        if old.hasNext != fetcher.hasNext {
            registrar.withMutation(of: self, keyPath: \.hasNext) { mirror.withLock { $0.hasNext = fetcher.hasNext } }
        }
    }
}

extension CAFetcherState {
    init(_ state: FetcherState) {
        switch state {
        case .initializing: self = .initializing
        case .loadingFirst: self = .loadingFirst
        case .idle: self = .idle
        case .loading: self = .loading
        }
    }
}

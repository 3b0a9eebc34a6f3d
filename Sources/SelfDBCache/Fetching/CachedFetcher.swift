import Foundation
import Observation
import SelfDB
import SelfDBRuntime

/// Fills a list (or one item) from the cache first and then from the server, keeps it
/// current as the cache changes, and pages through the server's rows.
///
/// Observable (`@Observable`) for SwiftUI, and as an `AsyncSequence` of fetched values
/// (`values`) anywhere. Lives on the main actor, as interface state does.
@MainActor
@Observable
public final class CachedFetcher<Row: CacheableModel> {
    /// What is fetched.
    public let strategy: FetchStrategy<Row>
    /// Loading activity.
    public private(set) var state: FetcherState = .initializing { didSet { if state != oldValue { onChange?(self) } } }
    /// What the fetcher holds.
    public private(set) var value: FetchedValue<Row> = .initial { didSet { onChange?(self) } }
    /// Whether the server has more pages.
    public private(set) var hasNext = false { didSet { if hasNext != oldValue { onChange?(self) } } }
    /// Called after every change of `state`, `value` or `hasNext`, before the change is
    /// visible to anything awaiting the fetcher: for adapters that mirror a fetcher outside
    /// the main actor (the `CachedData` product's `CAFetcher`). One observer at a time.
    @ObservationIgnored public var onChange: (@MainActor (CachedFetcher<Row>) -> Void)?
    /// The last failure of a load, cleared by the next success.
    public private(set) var lastError: CacheError?
    /// Whether `setup(cacheOnly: true)` was used: the network is never touched.
    public private(set) var isCacheOnly = false

    @ObservationIgnored private let cache: SelfDBCache
    @ObservationIgnored private let itemFilter: (@Sendable (Row) -> Bool)?
    @ObservationIgnored private var nextPage = 1
    @ObservationIgnored private var nextCursor: String?
    @ObservationIgnored private var generation = 0
    @ObservationIgnored private var loadTask: Task<Void, any Error>?
    @ObservationIgnored private let subscription = Locked<Task<Void, Never>?>(nil)
    @ObservationIgnored private let watchers = Locked<[UUID: AsyncStream<FetchedValue<Row>>.Continuation]>([:])

    init(cache: SelfDBCache, strategy: FetchStrategy<Row>, itemFilter: (@Sendable (Row) -> Bool)?) {
        self.cache = cache
        self.strategy = strategy
        self.itemFilter = itemFilter
    }

    deinit {
        subscription.withLock { $0?.cancel() }
        watchers.withLock { watchers in
            for continuation in watchers.values { continuation.finish() }
        }
    }

    /// The items, in view order (filters applied).
    public var items: [CachedItem<Row>] { value.items }
    /// The rows, in view order (filters applied).
    public var rows: [Row] { value.items.map(\.row) }
    /// The item of a `.one` fetcher, if it is known.
    public var item: CachedItem<Row>? { value.items.first }

    /// The fetched value now and after every change, for as long as it is iterated.
    public var values: AsyncStream<FetchedValue<Row>> {
        let (stream, continuation) = AsyncStream.makeStream(of: FetchedValue<Row>.self, bufferingPolicy: .bufferingNewest(16))
        let id = UUID()
        continuation.yield(value)
        watchers.withLock { $0[id] = continuation }
        continuation.onTermination = { [watchers] _ in watchers.withLock { _ = $0.removeValue(forKey: id) } }
        return stream
    }

    /// The view the fetcher's items are listed in; a single item has a view of its own.
    private var viewKey: String {
        strategy.view ?? "#item/\(strategy.itemID ?? "")"
    }

    // MARK: Loading

    /// Shows what the cache holds, starts following cache changes, then (unless
    /// `cacheOnly`) fetches the first page from the server.
    ///
    /// - Throws: `CacheError.invalidArgument` for a bad strategy; `fetchFailed` or
    ///   `offline` if the server fetch failed (the cached items stay shown).
    public func setup(cacheOnly: Bool = false) async throws {
        if let problem = strategy.problem { throw problem }
        await cache.registerIfTable(Row.self)
        isCacheOnly = cacheOnly
        if strategy.view != nil, let page = try cache.storage.viewPage(type: Row.cacheTypeName, view: viewKey) {
            nextPage = page.nextPage
            hasNext = page.hasNext
            nextCursor = page.nextCursor
        }
        try readCache(markEmpty: cacheOnly)
        follow()
        if cacheOnly {
            state = .idle
            return
        }
        try await reload()
    }

    /// Fetches the next page (the first if nothing was fetched). While a load runs, waits
    /// for it instead of starting another. Does nothing in cache-only mode.
    public func load() async throws {
        guard !isCacheOnly else { return }
        if let loadTask {
            try await loadTask.value
            return
        }
        try await start(replacing: value == .initial)
    }

    /// Fetches the next page if there is one.
    public func loadMore() async throws {
        guard hasNext else { return }
        try await load()
    }

    /// Starts over from the first page, cancelling a load in flight; the view keeps its
    /// items until the new first page replaces them.
    public func reload() async throws {
        guard !isCacheOnly else { return }
        try await start(replacing: true)
    }

    /// Runs a load in a task of its own (a later reload cancels it), which the caller's
    /// cancellation cancels too: the load then stops with `CacheError.cancelled` as soon as its
    /// request returns (the transports return a cancelled request at once), and nothing of its
    /// answer is written.
    private func start(replacing: Bool) async throws {
        loadTask?.cancel()
        generation += 1
        let current = generation
        let task = Task { try await self.run(replacing: replacing, generation: current) }
        loadTask = task
        defer { if generation == current { loadTask = nil } }
        try await withTaskCancellationHandler {
            try await task.value
        } onCancel: {
            task.cancel()
        }
    }

    private func run(replacing: Bool, generation current: Int) async throws {
        state = value == .initial ? .loadingFirst : .loading
        defer { if generation == current { state = .idle } }
        do {
            switch strategy.source {
            case .pages(let view, let pageSize, let allPages, let fetch, _):
                var page = replacing ? 1 : nextPage
                repeat {
                    let result = try await fetch(cache.selfdb, page, pageSize)
                    // A reload that started meanwhile owns the view now.
                    guard generation == current, !Task.isCancelled else { throw CacheError.cancelled }
                    let next = ViewPage(nextPage: page + 1, hasNext: result.hasNext)
                    try cache.storage.writePage(type: Row.cacheTypeName, view: view, items: try ItemCoding.encode(result.rows), replacing: page == 1, page: next, now: Date())
                    nextPage = next.nextPage
                    hasNext = next.hasNext
                    page += 1
                } while allPages && hasNext
            case .cursor(let view, let pageSize, let allPages, let fetch):
                var first = replacing
                repeat {
                    let cursor = first ? nil : nextCursor
                    let page = try await fetch(cursor, pageSize)
                    guard generation == current, !Task.isCancelled else { throw CacheError.cancelled }
                    // "More" with the cursor just used would fetch the same page for ever.
                    if allPages, page.hasNext, !first, page.next == cursor {
                        throw CacheError.fetchFailed(.invalidResponse("the server answered 'more' without moving the cursor (\(cursor ?? "nil"))"))
                    }
                    let next = ViewPage(nextPage: (first ? 1 : nextPage) + 1, hasNext: page.hasNext, nextCursor: page.next)
                    try cache.storage.writePage(type: Row.cacheTypeName, view: view, items: try ItemCoding.encode(page.rows), replacing: first, page: next, now: Date())
                    nextPage = next.nextPage
                    nextCursor = next.nextCursor
                    hasNext = next.hasNext
                    first = false
                } while allPages && hasNext
            case .one(let id, let fetch):
                let found = try await fetch(cache.selfdb, id)
                guard generation == current, !Task.isCancelled else { throw CacheError.cancelled }
                if let found {
                    try cache.storage.writePage(
                        type: Row.cacheTypeName,
                        view: viewKey,
                        items: [try ItemCoding.encode(found)],
                        replacing: true,
                        page: ViewPage(nextPage: 1, hasNext: false),
                        now: Date()
                    )
                } else if let gone = try cache.storage.item(type: Row.cacheTypeName, id: id) {
                    _ = try cache.storage.applyRemote(type: Row.cacheTypeName, kind: .delete, item: gone, insertInto: [], at: .append, now: Date())
                }
            }
            lastError = nil
            try readCache(markEmpty: true)
            // Other views share these items: let them re-read.
            cache.broadcaster.post(.changed, typeName: Row.cacheTypeName)
        } catch {
            let failure = Self.cacheError(error)
            if !failure.isCancellation { lastError = failure }
            throw failure
        }
    }

    // MARK: Cache

    /// Re-reads the fetcher's items from the cache.
    public func refreshFromCache() throws {
        try readCache(markEmpty: value != .initial)
    }

    private func readCache(markEmpty: Bool) throws {
        let items: [CachedItem<Row>]
        switch strategy.source {
        case .pages(let view, _, _, _, let matches):
            items = try ItemCoding.viewItems(cache.storage, view: view, as: Row.self)
                .filter { matches($0.row) && (itemFilter?($0.row) ?? true) }
        case .cursor(let view, _, _, _):
            items = try ItemCoding.viewItems(cache.storage, view: view, as: Row.self)
                .filter { itemFilter?($0.row) ?? true }
        case .one(let id, _):
            // The fetched item is listed in the item's own view under the key the server gave
            // it, which may differ in case from `id`.
            let stored = try cache.storage.viewItems(type: Row.cacheTypeName, view: viewKey).first ?? cache.storage.item(type: Row.cacheTypeName, id: id)
            items =
                try stored.map { [try ItemCoding.decodeOne($0, as: Row.self)] }?
                .filter { itemFilter?($0.row) ?? true } ?? []
        }
        if items.isEmpty && !markEmpty { return }
        publish(FetchedValue(items))
    }

    private func publish(_ newValue: FetchedValue<Row>) {
        guard newValue != value else { return }
        value = newValue
        for continuation in watchers.withLock({ Array($0.values) }) {
            continuation.yield(newValue)
        }
    }

    private func follow() {
        let events = cache.broadcaster.subscribe(ViewKey(typeName: Row.cacheTypeName, view: viewKey))
        let task = Task { [weak self] in
            for await event in events {
                guard let self else { return }
                switch event {
                case .changed:
                    try? self.refreshFromCache()
                case .reload:
                    try? await self.reload()
                }
            }
        }
        subscription.withLock {
            $0?.cancel()
            $0 = task
        }
    }

    // MARK: Errors

    private nonisolated static func cacheError(_ error: any Error) -> CacheError {
        if let error = error as? CacheError { return error }
        if error is CancellationError { return .cancelled }
        guard let failure = error.clientError else { return .loaderFailed(error) }
        if case .connectionError(let underlying) = failure, (underlying as? URLError)?.code == .cancelled { return .cancelled }
        return failure.isTransient ? .offline(failure) : .fetchFailed(failure)
    }
}

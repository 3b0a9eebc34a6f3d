import Foundation
import SelfDBRuntime
import Observation
import SelfDB

/// Fills a list (or one item) from the cache first and then from the server, keeps it
/// current as the cache changes, and pages through the server's rows.
///
/// Observable (`@Observable`) for SwiftUI, and as an `AsyncSequence` of fetched values
/// (`values`) anywhere. Lives on the main actor, as interface state does.
@MainActor
@Observable
public final class CachedFetcher<Row: TableModel> {
    /// What is fetched.
    public let strategy: FetchStrategy<Row>
    /// Loading activity.
    public private(set) var state: FetcherState = .initializing
    /// What the fetcher holds.
    public private(set) var value: FetchedValue<Row> = .initial
    /// Whether the server has more pages.
    public private(set) var hasNext = false
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
        watchers.withLock { watchers in watchers.values.forEach { $0.finish() } }
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

    private var viewKey: String {
        switch strategy {
        case .all(let view, _, _, _), .cursor(let view, _, _): view
        case .one(let id): "#item/\(id)"
        }
    }

    // MARK: Loading

    /// Shows what the cache holds, starts following cache changes, then (unless
    /// `cacheOnly`) fetches the first page from the server.
    ///
    /// - Throws: `CacheError.invalidArgument` for a bad strategy; `fetchFailed` or
    ///   `offline` if the server fetch failed (the cached items stay shown).
    public func setup(cacheOnly: Bool = false) async throws {
        try validateStrategy()
        await cache.register(Row.self)
        isCacheOnly = cacheOnly
        if case .one = strategy {} else if let page = try cache.storage.viewPage(type: Row.tableName, view: viewKey) {
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

    private func start(replacing: Bool) async throws {
        loadTask?.cancel()
        generation += 1
        let current = generation
        let task = Task { try await self.run(replacing: replacing, generation: current) }
        loadTask = task
        defer { if generation == current { loadTask = nil } }
        try await task.value
    }

    private func run(replacing: Bool, generation current: Int) async throws {
        state = value == .initial ? .loadingFirst : .loading
        defer { if generation == current { state = .idle } }
        do {
            switch strategy {
            case .all(let view, let query, let pageSize, let allPages):
                var page = replacing ? 1 : nextPage
                repeat {
                    let result = try await Self.fetchPage(cache.selfdb.tables.data, query: query, page: page, pageSize: pageSize)
                    // A reload that started meanwhile owns the view now.
                    guard generation == current, !Task.isCancelled else { throw CacheError.cancelled }
                    let next = ViewPage(nextPage: page + 1, hasNext: result.hasNext)
                    try cache.storage.writePage(type: Row.tableName, view: view, items: result.items, replacing: page == 1, page: next, now: Date())
                    nextPage = next.nextPage
                    hasNext = next.hasNext
                    page += 1
                } while allPages && hasNext
            case .cursor(let view, let pageSize, let fetch):
                let cursor = replacing ? nil : nextCursor
                let page = try await fetch(cursor, pageSize)
                guard generation == current, !Task.isCancelled else { throw CacheError.cancelled }
                let next = ViewPage(nextPage: (replacing ? 1 : nextPage) + 1, hasNext: page.next != nil, nextCursor: page.next)
                try cache.storage.writePage(type: Row.tableName, view: view, items: try ItemCoding.encode(page.rows), replacing: cursor == nil, page: next, now: Date())
                nextPage = next.nextPage
                nextCursor = next.nextCursor
                hasNext = next.hasNext
            case .one(let id):
                let found = try await Self.fetchOne(cache.selfdb.tables.data, id: id)
                guard generation == current, !Task.isCancelled else { throw CacheError.cancelled }
                if let found {
                    try cache.storage.writePage(type: Row.tableName, view: viewKey, items: [found], replacing: true, page: ViewPage(nextPage: 1, hasNext: false), now: Date())
                } else if let gone = try cache.storage.item(type: Row.tableName, id: id) {
                    _ = try cache.storage.applyRemote(type: Row.tableName, kind: .delete, item: gone, insertInto: [], at: .append, now: Date())
                }
            }
            lastError = nil
            try readCache(markEmpty: true)
            // Other views share these items: let them re-read.
            cache.broadcaster.post(.changed, typeName: Row.tableName)
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
        switch strategy {
        case .all(let view, let query, _, _):
            items = try ItemCoding.decode(cache.storage.viewItems(type: Row.tableName, view: view), as: Row.self)
                .filter { query.matches($0.row) && (itemFilter?($0.row) ?? true) }
        case .cursor(let view, _, _):
            items = try ItemCoding.decode(cache.storage.viewItems(type: Row.tableName, view: view), as: Row.self)
                .filter { itemFilter?($0.row) ?? true }
        case .one(let id):
            items = try cache.storage.item(type: Row.tableName, id: id)
                .map { [try ItemCoding.decodeOne($0, as: Row.self)] }?
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
        let events = cache.broadcaster.subscribe(ViewKey(typeName: Row.tableName, view: viewKey))
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
        subscription.withLock { $0?.cancel(); $0 = task }
    }

    private func validateStrategy() throws {
        switch strategy {
        case .all(let view, let query, let pageSize, _):
            try SelfDBCache.validate(view: view)
            guard (1...QueryArguments.maxPageSize).contains(pageSize) else {
                throw CacheError.invalidArgument("page size must be from 1 to \(QueryArguments.maxPageSize), got \(pageSize)")
            }
            do { try query.validate() } catch { throw CacheError.invalidArgument(error.detail) }
        case .cursor(let view, let pageSize, _):
            try SelfDBCache.validate(view: view)
            guard pageSize >= 1 else { throw CacheError.invalidArgument("page size must be 1 or more, got \(pageSize)") }
        case .one(let id):
            guard !id.isEmpty else { throw CacheError.invalidArgument("an item id must not be empty") }
        }
    }

    // MARK: Network

    private nonisolated static func fetchPage(_ data: SelfDB.Tables.Data, query: TableQuery<Row>, page: Int, pageSize: Int) async throws -> (items: [StoredItem], hasNext: Bool) {
        var request = data.query(Row.self).page(page).pageSize(pageSize)
        if let text = query.searchText { request = request.search(text) }
        if let sort = query.sortKey { request = request.sort(sort.column, sort.order) }
        let result = try await request.executePage()
        return (try ItemCoding.encode(result.rows), result.hasNext)
    }

    /// SelfDB has no endpoint for one row, and search covers only text columns: the row is
    /// looked for page by page (1,000 rows a page).
    private nonisolated static func fetchOne(_ data: SelfDB.Tables.Data, id: String) async throws -> StoredItem? {
        var page = 1
        while true {
            let result = try await data.query(Row.self).page(page).pageSize(QueryArguments.maxPageSize).executePage()
            for row in result.rows {
                let item = try ItemCoding.encode(row)
                if item.id.caseInsensitiveCompare(id) == .orderedSame { return item }
            }
            guard result.hasNext else { return nil }
            page += 1
        }
    }

    private nonisolated static func cacheError(_ error: any Error) -> CacheError {
        if let error = error as? CacheError { return error }
        if error is CancellationError { return .cancelled }
        let failure = error.asSelfDBError
        if case .connectionError(let underlying) = failure, (underlying as? URLError)?.code == .cancelled { return .cancelled }
        return failure.isTransient ? .offline(failure) : .fetchFailed(failure)
    }
}

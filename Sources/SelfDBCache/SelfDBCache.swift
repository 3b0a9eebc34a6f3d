import Foundation
import SelfDB

/// An offline-first cache of table models in a local SQLite file.
///
/// ```swift
/// let cache = try SelfDBCache(selfdb: selfdb, path: cacheURL.path)
/// let feed = cache.fetcher(Task.self, .all(view: "open", query: Task.query().sort(.createdAt, .desc)))
/// try await feed.setup()                       // cache first, then the server
/// try await cache.insert(task, into: "open")    // optimistic, durable, replayed if offline
/// ```
///
/// Items are keyed by type and primary key; a view is an ordered list of item ids, and an
/// item is shared by every view that lists it. Mutations are applied to the cache at once,
/// stored in the same transaction, and sent in order; a refusal rolls the cache back.
public final class SelfDBCache: Sendable {
    /// The client mutations and fetches go through.
    public let selfdb: SelfDB
    let storage: any CacheStorage
    let broadcaster = ChangeBroadcaster()
    let sender: MutationSender

    /// Opens (or creates) the cache file at `path`.
    ///
    /// - Throws: `CacheError.storage` if the file cannot be opened as a cache.
    public init(selfdb: SelfDB, path: String) throws {
        self.selfdb = selfdb
        storage = try SQLiteCacheStorage(path: path)
        sender = MutationSender(storage: storage, broadcaster: broadcaster)
    }

    /// Makes the queued mutations of `Row` sendable. Fetchers and mutations register their
    /// type themselves; call this at launch for types whose queued mutations should be
    /// replayed by `synchronize()` before any of them is used.
    public func register<Row: TableModel>(_ type: Row.Type) async {
        await sender.register(Row.tableName, RowSender.make(Row.self, data: selfdb.tables.data))
    }

    /// A fetcher of `Row` items; call `setup()` on it to fill it.
    ///
    /// - Parameter itemFilter: hides items that fail it (as the query's `where` filters do).
    @MainActor
    public func fetcher<Row: TableModel>(_ type: Row.Type, _ strategy: FetchStrategy<Row>, itemFilter: (@Sendable (Row) -> Bool)? = nil) -> CachedFetcher<Row> {
        CachedFetcher(cache: self, strategy: strategy, itemFilter: itemFilter)
    }

    // MARK: Reading

    /// The cached items of a view, in order, without touching the network.
    public func items<Row: TableModel>(_ type: Row.Type, view: String) throws -> [CachedItem<Row>] {
        try ItemCoding.decode(storage.viewItems(type: Row.tableName, view: view), as: Row.self)
    }

    /// One cached item, without touching the network.
    public func item<Row: TableModel>(_ type: Row.Type, id: String) throws -> CachedItem<Row>? {
        try storage.item(type: Row.tableName, id: id).map { try ItemCoding.decodeOne($0, as: Row.self) }
    }

    /// Writes rows fetched elsewhere into a view as page `page` (page 1 starts the view over;
    /// later pages are appended, skipping rows the view has). Items with a pending mutation
    /// keep their local row.
    public func savePage<Row: TableModel>(_ rows: [Row], into view: String, page: Int = 1, hasNext: Bool = false) throws {
        try Self.validate(view: view)
        guard page >= 1 else { throw CacheError.invalidArgument("page must be 1 or more, got \(page)") }
        let items = try ItemCoding.encode(rows)
        try storage.writePage(type: Row.tableName, view: view, items: items, replacing: page == 1, page: ViewPage(nextPage: page + 1, hasNext: hasNext), now: Date())
        broadcaster.post(.changed, typeName: Row.tableName)
    }

    /// How many mutations wait for the server.
    public func pendingMutationCount() throws -> Int {
        try storage.pendingMutations().count
    }

    // MARK: Mutations

    /// Inserts `row`: shown at once (state `inserting`) at `position` in `view`, then sent.
    ///
    /// - Parameter reloadOtherViews: refetch the other live views of `Row` once confirmed
    ///   (the new row may belong in them too).
    /// - Returns: `.confirmed` with the stored row, or `.pending` if the server is
    ///   unreachable (the insert stays queued, durably).
    /// - Throws: `CacheError.rejected` after rolling the cache back if the server refused it.
    @discardableResult
    public func insert<Row: TableModel>(_ row: Row, into view: String? = nil, at position: InsertPosition = .prepend, reloadOtherViews: Bool = false) async throws -> MutationOutcome<Row> {
        try await mutate(.insert, row, insertInto: view.map { ($0, position) }, reloadExcept: reloadOtherViews ? .some(view) : nil)
    }

    /// Updates `row` (matched on its primary key) in every view at once (state `updating`), then sends it.
    @discardableResult
    public func update<Row: TableModel>(_ row: Row, reloadOtherViews: Bool = false) async throws -> MutationOutcome<Row> {
        try await mutate(.update, row, insertInto: nil, reloadExcept: reloadOtherViews ? .some(nil) : nil)
    }

    /// Deletes `row`: it shows as `deleting` until the server agrees, then leaves every view.
    @discardableResult
    public func delete<Row: TableModel>(_ row: Row, reloadOtherViews: Bool = false) async throws -> MutationOutcome<Row> {
        try await mutate(.delete, row, insertInto: nil, reloadExcept: reloadOtherViews ? .some(nil) : nil)
    }

    private func mutate<Row: TableModel>(_ kind: MutationKind, _ row: Row, insertInto: (view: String, position: InsertPosition)?, reloadExcept: String??) async throws -> MutationOutcome<Row> {
        if let view = insertInto?.view { try Self.validate(view: view) }
        await register(Row.self)
        let item = try ItemCoding.encode(row, state: kind.pendingState)
        let sequence = try storage.enqueue(type: Row.tableName, kind: kind, item: item, insertInto: insertInto, now: Date())
        broadcaster.post(.changed, typeName: Row.tableName)
        await sender.expect(sequence)
        await sender.drain()
        switch await sender.takeOutcome(sequence) {
        case .rejected(let error):
            throw error
        case .confirmed(let json):
            if let reloadExcept { broadcaster.post(.reload(except: reloadExcept), typeName: Row.tableName) }
            return .confirmed(try json.map { try ItemCoding.decodeOne(StoredItem(id: item.id, json: $0, state: .normal), as: Row.self).row })
        case nil:
            return .pending
        }
    }

    /// Sends every queued mutation, in order, until done or the server is unreachable.
    /// Call it when connectivity returns and at launch (after `register(_:)`).
    @discardableResult
    public func synchronize() async -> SyncReport {
        await sender.drain()
    }

    /// Asks the live fetchers of `Row` to refetch from the server, except the one of `view`.
    public func reload<Row: TableModel>(_ type: Row.Type, except view: String? = nil) {
        broadcaster.post(.reload(except: view), typeName: Row.tableName)
    }

    // MARK: Changes made elsewhere

    /// Folds a change reported by the server (e.g. a realtime event) into the cache. An
    /// item with a pending local mutation is left alone: the local change is newer.
    ///
    /// - Parameter views: for an insert, the views that should list the new row, at `position`.
    public func apply<Row: TableModel>(change: CacheChange<Row>, insertingInto views: [String] = [], at position: InsertPosition = .prepend) throws {
        let (kind, row): (MutationKind, Row) = switch change {
        case .insert(let row): (.insert, row)
        case .update(let row): (.update, row)
        case .delete(let row): (.delete, row)
        }
        let item = try ItemCoding.encode(row)
        if try storage.applyRemote(type: Row.tableName, kind: kind, item: item, insertInto: views, at: position, now: Date()) {
            broadcaster.post(.changed, typeName: Row.tableName)
        }
    }

    /// Applies every change of `changes` until it ends (or the task is cancelled).
    public func follow<Changes: AsyncSequence, Row: TableModel>(_ changes: Changes, insertingInto views: [String] = [], at position: InsertPosition = .prepend) async throws where Changes.Element == CacheChange<Row> {
        for try await change in changes {
            try apply(change: change, insertingInto: views, at: position)
        }
    }

    // MARK: Housekeeping

    /// Drops views without a live fetcher that are too old or beyond the policy's count, and
    /// the items no view holds any more. Pending mutations and their items are kept.
    @discardableResult
    public func evict(_ policy: EvictionPolicy = EvictionPolicy()) throws -> Int {
        try storage.evict(policy, inUse: broadcaster.viewsInUse, now: Date())
    }

    static func validate(view: String) throws {
        guard !view.isEmpty, !view.hasPrefix("#") else {
            throw CacheError.invalidArgument("a view name must not be empty or start with '#', got '\(view)'")
        }
    }
}

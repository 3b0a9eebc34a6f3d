import Foundation
import Logging
import SelfDB

/// An offline-first cache of table models and other generated models in a local SQLite file.
///
/// ```swift
/// let cache = try SelfDBCache(selfdb: selfdb, path: cacheURL.path)
/// let feed = cache.fetcher(Task.self, .all(view: "open", query: Task.query().sort(.createdAt, .desc)))
/// try await feed.setup()                       // cache first, then the server
/// try await cache.insert(task, into: "open")    // optimistic, durable, replayed if offline
/// ```
///
/// Items are keyed by type and key (`CacheableModel`: a table's name and primary key, or a
/// model's name and `id`); a view is an ordered list of item ids, and an
/// item is shared by every view that lists it. Mutations are applied to the cache at once,
/// stored in the same transaction, and sent in order; a refusal rolls the cache back.
public final class SelfDBCache: Sendable {
    /// The client table models' fetches and mutations go through; nil for a cache whose
    /// items are fetched and sent by the app's own calls (``init(path:logger:)``).
    public let selfdb: SelfDB?
    let storage: any CacheStorage
    let broadcaster = ChangeBroadcaster()
    let sender: MutationSender
    let uploader: UploadSender
    /// Where queued uploads' files are kept: `<cache file>.uploads/`.
    let uploadsFolder: URL

    /// Opens (or creates) the cache file at `path`.
    ///
    /// - Parameters:
    ///   - selfdb: the client table models are fetched and sent through.
    ///   - path: the SQLite file of the cache; created if missing.
    ///   - logger: where the cache reports queue replays (info), each mutation sent (debug)
    ///     and rollbacks (warning); item ids and type names, never item contents. Silent by
    ///     default.
    /// - Throws: `CacheError.storage` if the file cannot be opened as a cache.
    public init(selfdb: SelfDB, path: String, logger: Logger = .selfdbDisabled) throws {
        self.selfdb = selfdb
        storage = try SQLiteCacheStorage(path: path)
        // A mutation whose answer was lost is settled and sent again as the client's policy
        // says a request is.
        sender = MutationSender(storage: storage, broadcaster: broadcaster, logger: logger, retryPolicy: selfdb.apiClient.configuration.retryPolicy)
        uploader = UploadSender(storage: storage, logger: logger)
        uploadsFolder = URL(fileURLWithPath: path + ".uploads", isDirectory: true)
    }

    /// Opens (or creates) a cache at `path` without a SelfDB client: its items come from the
    /// app's own loaders (`.pages`, `.cursor`, `.one(id:fetch:)`) and their mutations go through
    /// ``register(_:mutations:)``. Table strategies (`.all`, `.one(id:)`) need a client and fail
    /// with `CacheError.invalidArgument` here. (This is what the `CachedData` product runs on.)
    ///
    /// - Parameters:
    ///   - path: the SQLite file of the cache; created if missing.
    ///   - logger: where the cache reports queue replays and rollbacks (silent by default).
    /// - Throws: `CacheError.storage` if the file cannot be opened as a cache.
    public init(path: String, logger: Logger = .selfdbDisabled) throws {
        self.selfdb = nil
        storage = try SQLiteCacheStorage(path: path)
        sender = MutationSender(storage: storage, broadcaster: broadcaster, logger: logger)
        uploader = UploadSender(storage: storage, logger: logger)
        uploadsFolder = URL(fileURLWithPath: path + ".uploads", isDirectory: true)
    }

    /// The client, for table models; a cache opened without one refuses them.
    func client(for type: Any.Type) throws -> SelfDB {
        guard let selfdb else {
            throw CacheError.needsClient(type)
        }
        return selfdb
    }

    /// Makes the queued mutations of the table model `Row` sendable. Fetchers and mutations
    /// register table models themselves; call this at launch for types whose queued
    /// mutations should be replayed by `synchronize()` before any of them is used.
    public func register<Row: TableModel>(_ type: Row.Type) async {
        guard let selfdb else { return }
        await sender.register(Row.cacheTypeName, ItemSender.make(Row.self, data: selfdb.tables.data))
    }

    /// Sets how mutations of a model that is not a table model reach the server. Call it at
    /// launch, before mutating items of the type and before `synchronize()` (queued
    /// mutations of an earlier run are sent through it). The first registration stays.
    public func register<Item: CacheableModel>(_ type: Item.Type, mutations: CacheMutations<Item>) async {
        await sender.register(Item.cacheTypeName, ItemSender.make(mutations))
    }

    /// Registers `Item` if it is a table model (the client knows how to send those).
    func registerIfTable<Item: CacheableModel>(_ type: Item.Type) async {
        if let table = type as? any TableModel.Type { await register(table) }
    }

    /// A fetcher of `Row` items; call `setup()` on it to fill it.
    ///
    /// - Parameters:
    ///   - type: the item type, a table model or a registered ``register(_:mutations:)`` model.
    ///   - strategy: the view (or single item) to show and how its pages are fetched.
    ///   - itemFilter: hides items that fail it (as the query's `where` filters do).
    @MainActor
    public func fetcher<Row: CacheableModel>(_ type: Row.Type, _ strategy: FetchStrategy<Row>, itemFilter: (@Sendable (Row) -> Bool)? = nil) -> CachedFetcher<Row> {
        CachedFetcher(cache: self, strategy: strategy, itemFilter: itemFilter)
    }

    // MARK: Reading

    /// The cached items of a view, in order, without touching the network.
    public func items<Row: CacheableModel>(_ type: Row.Type, view: String) throws -> [CachedItem<Row>] {
        try ItemCoding.viewItems(storage, view: view, as: Row.self)
    }

    /// One cached item, without touching the network.
    public func item<Row: CacheableModel>(_ type: Row.Type, id: String) throws -> CachedItem<Row>? {
        try storage.item(type: Row.cacheTypeName, id: id).map { try ItemCoding.decodeOne($0, as: Row.self) }
    }

    /// Writes rows fetched elsewhere into a view as page `page` (page 1 starts the view over;
    /// later pages are appended, skipping rows the view has). Items with a pending mutation
    /// keep their local row.
    public func savePage<Row: CacheableModel>(_ rows: [Row], into view: String, page: Int = 1, hasNext: Bool = false) throws {
        try Self.validate(view: view)
        guard page >= 1 else { throw CacheError.invalidArgument("page must be 1 or more, got \(page)") }
        let items = try ItemCoding.encode(rows)
        try storage.writePage(type: Row.cacheTypeName, view: view, items: items, replacing: page == 1, page: ViewPage(nextPage: page + 1, hasNext: hasNext), now: Date())
        broadcaster.post(.changed, typeName: Row.cacheTypeName)
    }

    /// How many mutations wait for the server.
    public func pendingMutationCount() throws -> Int {
        try storage.pendingMutationCount()
    }

    // MARK: Mutations

    /// Inserts `row`: shown at once (state `inserting`) at `position` in `view`, then sent.
    ///
    /// - Parameters:
    ///   - row: the new item.
    ///   - view: the view that shows it at once; nil for none.
    ///   - position: where in `view` it is shown.
    ///   - reloadOtherViews: refetch the other live views of `Row` once confirmed
    ///     (the new row may belong in them too).
    /// - Returns: `.confirmed` with the stored row, or `.pending` if the server is
    ///   unreachable (the insert stays queued, durably).
    /// - Throws: `CacheError.rejected` after rolling the cache back if the server refused it;
    ///   `CacheError.invalidArgument` before touching the cache if `Row` is not a table model
    ///   and no insert was registered for it (``register(_:mutations:)``).
    @discardableResult
    public func insert<Row: CacheableModel>(_ row: Row, into view: String? = nil, at position: InsertPosition = .prepend, reloadOtherViews: Bool = false) async throws -> MutationOutcome<Row> {
        try await mutate(.insert, row, insertInto: view.map { [$0] } ?? [], at: position, reloadExcept: reloadOtherViews ? .some(view) : nil)
    }

    /// Inserts `row` into several views at once (each at `position`), then sends it; as
    /// ``insert(_:into:at:reloadOtherViews:)`` otherwise. A rollback takes it out of all of them.
    @discardableResult
    public func insert<Row: CacheableModel>(_ row: Row, into views: [String], at position: InsertPosition = .prepend) async throws -> MutationOutcome<Row> {
        try await mutate(.insert, row, insertInto: views, at: position, reloadExcept: nil)
    }

    /// Updates `row` (matched on its primary key) in every view at once (state `updating`), then sends it.
    @discardableResult
    public func update<Row: CacheableModel>(_ row: Row, reloadOtherViews: Bool = false) async throws -> MutationOutcome<Row> {
        try await mutate(.update, row, insertInto: [], at: .prepend, reloadExcept: reloadOtherViews ? .some(nil) : nil)
    }

    /// Deletes `row`: it shows as `deleting` until the server agrees, then leaves every view.
    @discardableResult
    public func delete<Row: CacheableModel>(_ row: Row, reloadOtherViews: Bool = false) async throws -> MutationOutcome<Row> {
        try await mutate(.delete, row, insertInto: [], at: .prepend, reloadExcept: reloadOtherViews ? .some(nil) : nil)
    }

    private func mutate<Row: CacheableModel>(_ kind: MutationKind, _ row: Row, insertInto views: [String], at position: InsertPosition, reloadExcept: String??) async throws -> MutationOutcome<Row> {
        for view in views { try Self.validate(view: view) }
        await registerIfTable(Row.self)
        switch await sender.supports(Row.cacheTypeName, kind) {
        case nil: throw CacheError.invalidArgument("\(Row.self) has no registered mutations; call register(_:mutations:) first")
        case false?: throw CacheError.invalidArgument("no \(kind.rawValue) was registered for \(Row.self)")
        case true?: break
        }
        let item = try ItemCoding.encode(row, state: kind.pendingState)
        let sequence = try storage.enqueue(type: Row.cacheTypeName, kind: kind, item: item, insertInto: views, at: position, now: Date())
        broadcaster.post(.changed, typeName: Row.cacheTypeName)
        // Behind a queued upload, a row waits for `synchronize()`, which sends the files first
        // (the row may name one).
        if (try? storage.pendingUploadCount()) ?? 0 > 0 { return .pending }
        await sender.expect(sequence)
        await sender.drain()
        switch await sender.takeOutcome(sequence) {
        case .rejected(let error):
            throw error
        case .confirmed(let stored):
            if let reloadExcept { broadcaster.post(.reload(.except(reloadExcept)), typeName: Row.cacheTypeName) }
            return .confirmed(try stored.map { try ItemCoding.decodeOne($0, as: Row.self).row })
        case nil:
            return .pending
        }
    }

    /// Sends every queued upload, then every queued mutation, in order, until done or the
    /// server is unreachable (while an upload is still queued, no mutation is sent). Call it
    /// when connectivity returns and at launch (after `register(_:)`).
    @discardableResult
    public func synchronize() async -> SyncReport {
        guard let selfdb, (try? storage.pendingUploadCount()) ?? 0 > 0 else { return await sender.drain() }
        // Files first: a row queued after its file refers to a file the server holds.
        let uploads = await uploader.drain(selfdb)
        guard uploads.remaining == 0 else {
            var report = SyncReport()
            report.remaining = (try? storage.pendingMutationCount()) ?? 0
            report.stoppedBy = uploads.stoppedBy
            (report.uploaded, report.failedUploads, report.uploadsRemaining) = (uploads.sent, uploads.failed, uploads.remaining)
            return report
        }
        var report = await sender.drain()
        (report.uploaded, report.failedUploads) = (uploads.sent, uploads.failed)
        return report
    }

    /// Asks the live fetchers of `Row` to refetch from the server, except the one of `view`.
    public func reload<Row: CacheableModel>(_ type: Row.Type, except view: String? = nil) {
        broadcaster.post(.reload(.except(view)), typeName: Row.cacheTypeName)
    }

    /// Asks the live fetcher of `Row`'s view `view` (if there is one) to refetch from the server.
    public func reload<Row: CacheableModel>(_ type: Row.Type, only view: String) {
        broadcaster.post(.reload(.only(view)), typeName: Row.cacheTypeName)
    }

    /// The list views of `Row` that a live fetcher shows (single items' views excluded), sorted.
    public func liveViews<Row: CacheableModel>(of type: Row.Type) -> [String] {
        broadcaster.liveViews(typeName: Row.cacheTypeName)
    }

    // MARK: Changes made elsewhere

    /// Folds a change reported by the server (e.g. a realtime event) into the cache. An
    /// item with a pending local mutation is left alone: the local change is newer.
    ///
    /// - Parameters:
    ///   - change: the insert, update or delete the server reported.
    ///   - views: for an insert, the views that should list the new row, at `position`.
    ///   - position: where in `views` an inserted row is listed.
    public func apply<Row: CacheableModel>(change: CacheChange<Row>, insertingInto views: [String] = [], at position: InsertPosition = .prepend) throws {
        let (kind, row): (MutationKind, Row) =
            switch change {
            case .insert(let row): (.insert, row)
            case .update(let row): (.update, row)
            case .delete(let row): (.delete, row)
            }
        let item = try ItemCoding.encode(row)
        if try storage.applyRemote(type: Row.cacheTypeName, kind: kind, item: item, insertInto: views, at: position, now: Date()) {
            broadcaster.post(.changed, typeName: Row.cacheTypeName)
        }
    }

    /// Applies every change of `changes` until it ends (or the task is cancelled).
    public func follow<Changes: AsyncSequence, Row: CacheableModel>(_ changes: Changes, insertingInto views: [String] = [], at position: InsertPosition = .prepend) async throws
    where Changes.Element == CacheChange<Row> {
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
        if let problem = ViewName.problem(view) { throw problem }
    }
}

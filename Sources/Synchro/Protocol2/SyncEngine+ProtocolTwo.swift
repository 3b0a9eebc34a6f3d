import Foundation
import GRDB
import SelfDBRuntime

/// Synchro protocol 2 (Synchro 0.3, `shared/contracts/synchro-v2.md`): connect instead of
/// schema and register, per-scope signed cursors, rebuild per scope instead of snapshot, every
/// final page's checksums checked against the rows held.
extension SyncEngine {
    // MARK: - Connect (§3.1, §5.2)

    /// Connects: registers this client, installs the server's schema when it differs, and
    /// applies the scope changes; then rebuilds every scope without a cursor.
    func connect() async throws {
        let (schemaRef, setVersion, known, storedProtocol) = try await database.read { db in
            (
                SchemaRef(version: try MetaStore.int64(.schemaVersion, in: db), hash: try MetaStore.string(.schemaHash, in: db) ?? ""),
                try MetaStore.int64(.scopeSetVersion, in: db),
                try ScopeState.scopes(in: db),
                try MetaStore.int64(.protocolVersion, in: db)
            )
        }
        let installed = schema.current
        // A client without a stored schema asks for the whole manifest.
        let sent = installed == nil ? SchemaRef(version: 0, hash: "") : schemaRef
        let response = try await apiV2.sync.connect(
            ConnectRequest(
                clientId: config.clientID,
                platform: config.platform,
                appVersion: config.appVersion,
                protocolVersion: 2,
                schema: sent,
                scopeSetVersion: setVersion,
                knownScopes: Dictionary(known.map { ($0.id, ScopeCursorRef(cursor: $0.cursor)) }, uniquingKeysWith: { first, _ in first })
            )
        )
        try Self.validate(response)
        let fetched: (schema: LocalSchema, tables: [SyncTable])?
        if let manifest = response.schemaDefinition {
            let tables = manifest.tables.map(ProtocolTwoConversions.table)
            fetched = (try LocalSchema(version: response.schema.version, hash: response.schema.hash, tables: tables), tables)
        } else if installed == nil {
            throw SynchroError.schemaNotLoaded
        } else {
            fetched = nil
        }
        let current = try fetched?.schema ?? currentSchema()
        // A warm start's usual answer changes nothing: no write (and no WAL frame for close()).
        let unchanged =
            fetched == nil && response.scopes.add.isEmpty && response.scopes.remove.isEmpty
            && response.scopeSetVersion == setVersion && storedProtocol == 2
        if !unchanged {
            try await database.write { db in
                if let fetched, fetched.schema != installed {
                    try fetched.schema.install(in: db, replacing: installed)
                    try MetaStore.markUnheldRowsPossible(in: db)
                }
                if let fetched {
                    try LocalSchema.save(version: fetched.schema.version, hash: fetched.schema.hash, tables: fetched.tables, in: db)
                }
                try MetaStore.withSyncLock(db) {
                    for removed in response.scopes.remove { try ScopeState.remove(removed, schema: current, in: db) }
                }
                for added in response.scopes.add { try ScopeState.add(added.id, in: db) }
                try MetaStore.set(.scopeSetVersion, String(response.scopeSetVersion), in: db)
                try MetaStore.set(.protocolVersion, "2", in: db)
            }
        }
        if let fetched { schema.withLock { $0 = fetched.schema } }
        try await rebuildScopesWithoutCursor()
    }

    /// What the contract requires of a connect answer before anything is applied.
    private static func validate(_ response: ConnectResponse) throws {
        let needsDefinition = response.schema.action == .replace || response.schema.action == .rebuildLocal
        if case .unsupported = response.schema.action {
            throw SynchroError.upgradeRequired(currentVersion: "protocol 2", minimumVersion: "a protocol this client speaks")
        }
        guard needsDefinition == (response.schemaDefinition != nil) || response.schema.action == .fetch else {
            throw SynchroError.invalidResponse(message: "connect: schema action \(response.schema.action.rawValue) with\(response.schemaDefinition == nil ? "out" : "") a schema definition")
        }
        let added = response.scopes.add.map(\.id)
        guard Set(added).count == added.count, Set(response.scopes.remove).count == response.scopes.remove.count,
            Set(added).isDisjoint(with: response.scopes.remove), !added.contains("")
        else {
            throw SynchroError.invalidResponse(message: "connect: the scope changes repeat or contradict themselves")
        }
    }

    /// Rebuilds, one at a time and in id order, every scope whose cursor is null; then, after a
    /// move from a protocol-1 server, drops the rows no scope holds.
    func rebuildScopesWithoutCursor() async throws {
        let pending = try await database.read { db in try ScopeState.scopes(in: db).filter { $0.cursor == nil }.map(\.id) }
        for scope in pending { try await rebuild(scope: scope) }
        let prune = try await database.read { db in try MetaStore.string(.pruneUnheldRows, in: db) == "1" }
        guard prune else { return }
        let schema = try currentSchema()
        try await database.write { db in
            let stillRebuilding = try ScopeState.scopes(in: db).contains { $0.cursor == nil }
            guard !stillRebuilding else { return }
            try MetaStore.withSyncLock(db) { try ScopeState.pruneUnheld(schema: schema, in: db) }
            try MetaStore.set(.pruneUnheldRows, nil, in: db)
        }
    }

    // MARK: - Rebuild (§3.4)

    /// Rebuilds `scope`. Asks `onSnapshotRequired` first when the scope already holds rows (a
    /// rebuild may throw local state away); a checksum that does not match leaves the cursor
    /// null, so the next cycle rebuilds again.
    func rebuild(scope: String) async throws {
        let schema = try currentSchema()
        let holdsRows = try await database.read { db in
            try Bool.fetchOne(db, sql: "SELECT EXISTS (SELECT 1 FROM _synchro_scope_rows WHERE scope_id = ?)", arguments: [scope]) ?? false
        }
        if holdsRows {
            for handler in snapshotHandlers.all where await handler() == false {
                throw SynchroError.snapshotRequired
            }
        }
        let applier = RecordApplier(schema: schema)
        let replaced = replacedChecksums
        // The official 0.3.0 client pages rebuilds by `pullPageSize` (its config has no
        // snapshot page size any more); `snapshotPageSize` is protocol 1's. Here it is the
        // first page's size (PageSize).
        var size = PageSize(configured: config.pullPageSize)
        let generation = try await database.write { db in try ScopeState.beginRebuild(scope, in: db) }
        let (api, clientID) = (apiV2.api, config.clientID)
        func ask(after cursor: String?, limit: Int) -> PageAsked<RebuildRequest, PulledPage<RebuildResponse>> {
            let request = RebuildRequest(clientId: clientID, scope: scope, cursor: cursor, limit: limit)
            return PageAsked(request: request, page: Task { try await PulledPage.rebuild(request, with: api) })
        }
        // Pipelined as pull pages are (``pullAllV2(ahead:)``): the next page is asked for as
        // soon as this one's head gives its cursor (a page token the server keeps nothing of),
        // and this one is decoded while the one before it is written.
        var next: PageAsked<RebuildRequest, PulledPage<RebuildResponse>>? = ask(after: nil, limit: size.current)
        defer { next?.page.cancel() }
        // A page being written while the next one comes and is decoded.
        var writing: Task<Bool, any Error>?
        do {
            for _ in 0..<1_000_000 {
                guard var asked = next else { break }
                next = nil
                let fetched = try await asked.value()
                let head = fetched.head
                size.record(asked: asked.request.limit, took: asked.elapsed, hasMore: head.hasMore)
                if !head.hasMore, head.finalScopeCursor == nil || head.checksum.flatMap(ScopeChecksum.parse) == nil {
                    throw SynchroError.invalidResponse(message: "rebuild of \(scope): a last page without its cursor or checksum")
                }
                guard !head.hasMore || head.cursor != nil else {
                    throw SynchroError.invalidResponse(message: "rebuild of \(scope): more pages but no cursor")
                }
                if head.hasMore, let cursor = head.cursor { next = ask(after: cursor, limit: size.current) }
                let page = try fetched.decoded()
                // The page before is written before this one is.
                if let before = writing {
                    writing = nil
                    _ = try await before.value
                }
                let database = database
                let write = Task {
                    try await database.write { db -> Bool in
                        try MetaStore.withSyncLock(db) {
                            var merger = applier.merger(in: db)
                            var tagger = ScopeState.Tagger(in: db, replaced: replaced)
                            for index in try WriteOrder.positions(of: page.records, in: db, key: { (table: $0.table, id: Self.recordID($0.pk, table: $0.table, schema: schema)) }) {
                                let record = page.records[index]
                                guard let row = record.row, let id = Self.recordID(record.pk, table: record.table, schema: schema),
                                    let rowChecksum = record.rowChecksum.flatMap(ScopeChecksum.fromWire)
                                else { throw SynchroError.invalidResponse(message: "rebuild of \(scope): a record without its row or checksum") }
                                try merger.write(ProtocolTwoConversions.record(table: record.table, id: id, row: row, schema: schema))
                                try tagger.tag(scope, table: record.table, id: id, checksum: rowChecksum, generation: generation)
                            }
                            try merger.flush()
                            try tagger.flush()
                            guard !page.hasMore, let finalCursor = page.finalScopeCursor, let checksum = page.checksum.flatMap(ScopeChecksum.parse) else { return true }
                            return try ScopeState.finishRebuild(scope, generation: generation, cursor: finalCursor, checksum: checksum, schema: schema, in: db)
                        }
                    }
                }
                if page.hasMore {
                    writing = write
                    continue
                }
                guard try await write.value else {
                    throw SynchroError.invalidResponse(message: "rebuild of \(scope): the rows received do not add up to the server's checksum")
                }
                config.logger.info("sync rebuilt scope \(scope)")
                return
            }
            // Out of pages without a last one (no more asked): what was written stays whole,
            // and the scope, its cursor still null, is rebuilt by the next cycle.
            if let writing { _ = try await writing.value }
        } catch {
            // A page being written is let finish (whole, in order); the rebuild starts over at
            // the next cycle, its generation marking what this one wrote.
            if let writing { _ = try? await writing.value }
            throw error
        }
    }

    // MARK: - Pull (§3.3)

    /// Pulls pages until the server has nothing more. Each page's rows, provenance and cursors
    /// go in one transaction; scopes the server asks to rebuild are rebuilt; on the last page a
    /// scope whose checksum does not match the rows held is rebuilt too.
    ///
    /// Pages that only move cursors on (more to come, no scope added, removed or to rebuild)
    /// are pipelined: the next one is asked for as soon as this one's head is read
    /// (``PulledPage``: the server keeps no cursor of ours, so asking early changes nothing),
    /// and this one is decoded while the page before it is still being applied. The server's
    /// work on a page, the client's decoding of the one before and the writing of the one
    /// before that overlap; the writes stay in page order, one transaction each, and a page is
    /// written only once the one before it is. A page that adds, removes or rebuilds scopes,
    /// and the last page, are applied before anything else is asked, from what is stored.
    ///
    /// `ahead`: the first page, already asked for (``askFirstPullPage(schema:limit:)``: by the
    /// push, once the server answered its last batch, while that batch is settled here); the
    /// pages after it start from its size.
    func pullAllV2(ahead: PullAhead? = nil) async throws {
        var prefetched = ahead
        defer { prefetched?.page.cancel() }
        let schema = try currentSchema()
        let applier = RecordApplier(schema: schema)
        let replaced = replacedChecksums
        var size = PageSize(configured: config.pullPageSize, startingAt: ahead?.request.limit)
        // A page that moves cursors on, being written while the next one comes and is decoded;
        // its value is the scopes whose cursors it found cleared (``apply(_:askedWith:schema:applier:replaced:in:)``).
        var writing: Task<[String], any Error>?
        do {
            for _ in 0..<1_000_000 {
                var asked: PullAhead
                if let prefetched { asked = prefetched } else { asked = try await askFirstPullPage(schema: schema, limit: size.current) }
                prefetched = nil
                let request = asked.request
                let pulled = try await asked.value()
                let head = pulled.head
                size.record(asked: request.limit, took: asked.elapsed, hasMore: head.hasMore)
                if head.hasMore != (head.checksums == nil) {
                    throw SynchroError.invalidResponse(message: "pull: checksums must come exactly on the last page")
                }
                let movesOn = head.hasMore && head.rebuild.isEmpty && head.scopeUpdates.add.isEmpty && head.scopeUpdates.remove.isEmpty
                if movesOn {
                    var next = request
                    next.limit = size.current
                    next.scopeSetVersion = head.scopeSetVersion
                    for (scope, cursor) in head.scopeCursors where next.scopes[scope] != nil {
                        next.scopes[scope] = ScopeCursorRef(cursor: cursor)
                    }
                    prefetched = askPull(next)
                }
                let page = try pulled.decoded()
                // The page before is written before this one is.
                if let before = writing {
                    writing = nil
                    let stalled = try await before.value
                    if !stalled.isEmpty {
                        // This page, and the one asked after it, carry cursors the rebuild replaces.
                        for scope in stalled { config.logger.info("sync: scope \(scope) does not match the server's rows; rebuilding it") }
                        prefetched?.page.cancel()
                        prefetched = nil
                        try await rebuildScopesWithoutCursor()
                        continue
                    }
                }
                if movesOn {
                    let (database, logger) = (database, config.logger)
                    writing = Task {
                        let stalled = try await database.write { db in
                            try Self.apply(page, askedWith: request, schema: schema, applier: applier, replaced: replaced, in: db)
                        }
                        if !page.changes.isEmpty { logger.info("sync pulled \(page.changes.count) change\(page.changes.count == 1 ? "" : "s")") }
                        return stalled
                    }
                    continue
                }
                // The usual idle answer changes nothing here: it is not written (no write
                // transaction, no WAL frame for `close()` to fold). One read decides whether it
                // changes anything stored, and if not, whether the pass over unheld rows is due; a
                // page with changes or scope moves needs no read to tell.
                if Self.changesNothingItCarries(page, askedWith: request) {
                    let pruneDue: Bool? = try await database.read { db in
                        guard try Self.changesNothingStored(page, askedWith: request, in: db) else { return nil }
                        return try ScopeState.unheldPassDue(in: db)
                    }
                    if let pruneDue {
                        if pruneDue { try await pruneUnheldRows(schema: schema) }
                        return
                    }
                }
                let mismatched = try await database.write { db in try Self.apply(page, askedWith: request, schema: schema, applier: applier, replaced: replaced, in: db) }
                if !page.changes.isEmpty { config.logger.info("sync pulled \(page.changes.count) change\(page.changes.count == 1 ? "" : "s")") }
                for scope in mismatched { config.logger.info("sync: scope \(scope) does not match the server's rows; rebuilding it") }
                if !page.rebuild.isEmpty || !mismatched.isEmpty || !page.scopeUpdates.add.isEmpty {
                    try await rebuildScopesWithoutCursor()
                } else if !page.hasMore {
                    // Every scope matches the server: a row no scope holds and no local change needs
                    // is not this device's (say, one it wrote for another user, which the server
                    // then kept in that user's scope only).
                    try await pruneUnheldRowsIfDue(schema: schema)
                }
                if !page.hasMore { return }
            }
        } catch {
            // A page being written is let finish (it is whole and in order): the next cycle
            // then asks from the cursors it stored.
            if let writing { _ = try? await writing.value }
            throw error
        }
    }

    /// Whether `page` brings nothing to write, on its face: a last page without changes, scope
    /// moves or rebuilds, whose cursors and scope set are the ones it was asked with.
    static func changesNothingItCarries(_ page: ScopedPullResponse, askedWith request: ScopedPullRequest) -> Bool {
        guard !page.hasMore, page.changes.isEmpty, page.rebuild.isEmpty, page.scopeUpdates.add.isEmpty, page.scopeUpdates.remove.isEmpty,
            page.scopeSetVersion == request.scopeSetVersion
        else { return false }
        return page.scopeCursors.allSatisfy { scope, cursor in request.scopes[scope].map { $0.cursor == cursor } ?? false }
    }

    /// Whether applying such a page (``changesNothingItCarries(_:askedWith:)``) would write
    /// nothing: the request's cursors and scope set are still the stored ones (no refusal
    /// cleared one meanwhile), and each scope already verified the checksum the page sends
    /// (``ScopeState/verifiedChecksum(of:in:)``).
    static func changesNothingStored(_ page: ScopedPullResponse, askedWith request: ScopedPullRequest, in db: Database) throws -> Bool {
        for (scope, sent) in page.checksums ?? [:] {
            guard let expected = ScopeChecksum.parse(sent), try ScopeState.verifiedChecksum(of: scope, in: db) == expected else { return false }
        }
        let stored = try ScopeState.scopes(in: db)
        guard stored.count == request.scopes.count else { return false }
        return try stored.allSatisfy { request.scopes[$0.id]?.cursor == $0.cursor } && MetaStore.int64(.scopeSetVersion, in: db) == page.scopeSetVersion
    }

    /// Deletes the rows no scope holds when something may have left one since the last time
    /// (a read decides, so an idle cycle writes nothing).
    func pruneUnheldRowsIfDue(schema: LocalSchema) async throws {
        guard try await database.read({ db in try ScopeState.unheldPassDue(in: db) }) else { return }
        try await pruneUnheldRows(schema: schema)
    }

    /// Deletes the rows no scope holds (``ScopeState/pruneUnheld(schema:onlyIfDue:in:)``, which
    /// checks again in its transaction that the pass is due).
    func pruneUnheldRows(schema: LocalSchema) async throws {
        try await database.write { db in try MetaStore.withSyncLock(db) { try ScopeState.pruneUnheld(schema: schema, onlyIfDue: true, in: db) } }
    }

    /// A page asked for: its request, its answer to come, and how long the answer took.
    struct PageAsked<Request: Sendable, Response: Sendable>: Sendable {
        let request: Request
        let page: Task<Response, any Error>
        let started = ContinuousClock.now
        /// From the ask to the answer, once ``value()`` returned (PageSize weighs it).
        private(set) var elapsed: Duration = .zero

        init(request: Request, page: Task<Response, any Error>) {
            self.request = request
            self.page = page
        }

        /// The page, once it came (cancelled with the caller).
        mutating func value() async throws -> Response {
            let page = self.page
            let response = try await withTaskCancellationHandler {
                try await page.value
            } onCancel: {
                page.cancel()
            }
            elapsed = ContinuousClock.now - started
            return response
        }
    }

    /// A pull page asked for.
    typealias PullAhead = PageAsked<ScopedPullRequest, PulledPage<ScopedPullResponse>>

    /// Asks for a pull's first page, with the cursors stored, and does not wait for it.
    /// `limit`: the page size (the configured one unless given).
    func askFirstPullPage(schema: LocalSchema, limit: Int? = nil) async throws -> PullAhead {
        let request = try await database.read { [config] db in try Self.firstPullRequest(schema: schema, config: config, limit: limit, in: db) }
        return askPull(request)
    }

    /// A pull's first request, with the cursors stored.
    static func firstPullRequest(schema: LocalSchema, config: SynchroConfig, limit: Int? = nil, in db: Database) throws -> ScopedPullRequest {
        ScopedPullRequest(
            clientId: config.clientID,
            schema: SchemaRef(version: schema.version, hash: schema.hash),
            scopeSetVersion: try MetaStore.int64(.scopeSetVersion, in: db),
            scopes: Dictionary(try ScopeState.scopes(in: db).map { ($0.id, ScopeCursorRef(cursor: $0.cursor)) }, uniquingKeysWith: { first, _ in first }),
            limit: limit ?? SynchroConfig.clamped(config.pullPageSize)
        )
    }

    /// Sends `request` and does not wait for its page.
    func askPull(_ request: ScopedPullRequest) -> PullAhead {
        let api = apiV2
        return PullAhead(request: request, page: Task { try await PulledPage.pull(request, with: api.api) })
    }

    /// Applies one pull page in one transaction, under the sync lock: its rows and provenance,
    /// cursors and scope changes; on the last page, each scope's checksum against the rows
    /// held. Returns the scopes to rebuild (their cursors are now null): those whose checksum
    /// did not match, and those whose cursor was cleared since the page was asked for
    /// (`request`, nil: none was; see ``ScopeState/distrust(table:id:schema:in:)``).
    static func apply(
        _ page: ScopedPullResponse,
        askedWith request: ScopedPullRequest? = nil,
        schema: LocalSchema,
        applier: RecordApplier,
        replaced: ReplacedChecksums,
        in db: Database
    ) throws -> [String] {
        try MetaStore.withSyncLock(db) {
            // The scopes whose rows this page changes: their last verified checksum no longer
            // stands (see ScopeState.verifiedChecksum).
            let touched = Set(page.changes.map(\.scope))
            for scope in touched { try ScopeState.unverify(scope, in: db) }
            // Each scope's generation, read once per page rather than once per row.
            var generations: [String: Int64] = [:]
            var writer = PageWriter(merger: applier.merger(in: db), tagger: ScopeState.Tagger(in: db, replaced: replaced))
            for index in try WriteOrder.positions(of: page.changes, in: db, key: { (table: $0.table, id: Self.recordID($0.pk, table: $0.table, schema: schema)) }) {
                let change = page.changes[index]
                let generation = try generations[change.scope] ?? ScopeState.generation(of: change.scope, in: db)
                generations[change.scope] = generation
                try apply(change, generation: generation, schema: schema, writer: &writer, in: db)
            }
            try writer.flush()
            var stalled: [String] = []
            for (scope, cursor) in page.scopeCursors {
                if let sent = request?.scopes[scope] {
                    if try !ScopeState.advanceCursor(of: scope, from: sent.cursor, to: cursor, in: db) { stalled.append(scope) }
                } else {
                    try ScopeState.setCursor(cursor, for: scope, in: db)
                }
            }
            for removed in page.scopeUpdates.remove { try ScopeState.remove(removed, schema: schema, in: db) }
            for added in page.scopeUpdates.add { try ScopeState.add(added.id, in: db) }
            try MetaStore.set(.scopeSetVersion, String(page.scopeSetVersion), in: db)
            for scope in page.rebuild { try ScopeState.setCursor(nil, for: scope, in: db) }
            var mismatched = stalled
            for (scope, sent) in page.checksums ?? [:] where !page.rebuild.contains(scope) && !stalled.contains(scope) {
                guard let expected = ScopeChecksum.parse(sent) else {
                    throw SynchroError.invalidResponse(message: "pull: scope \(scope) has checksum '\(sent)'")
                }
                // A scope this pull did not touch, whose rows added up to this very checksum
                // before, still does: an idle cycle reads no provenance.
                if !touched.contains(scope), try ScopeState.verifiedChecksum(of: scope, in: db) == expected { continue }
                if try ScopeState.localChecksum(scope, in: db) == expected {
                    try ScopeState.setVerifiedChecksum(expected, of: scope, in: db)
                } else {
                    try ScopeState.setCursor(nil, for: scope, in: db)
                    mismatched.append(scope)
                }
            }
            return mismatched
        }
    }

    /// A page's rows and their provenance, written many to a statement; everything else a
    /// page writes comes after ``flush()``, so the page's changes take effect in their order.
    struct PageWriter {
        var merger: RecordApplier.Merger
        var tagger: ScopeState.Tagger

        mutating func flush() throws {
            try merger.flush()
            try tagger.flush()
        }
    }

    /// One pulled change. An upsert brings the row; a delete with a tombstone keeps the row
    /// as deleted; a delete without a row, or with a live one (the row left this scope but
    /// lives on: 0.3.0 sends it so), only means this scope no longer holds it.
    private static func apply(
        _ change: ChangeRecord,
        generation: Int64,
        schema: LocalSchema,
        writer: inout PageWriter,
        in db: Database
    ) throws {
        guard schema.contains(table: change.table), let id = Self.recordID(change.pk, table: change.table, schema: schema) else { return }
        switch change.op {
        case .upsert:
            guard let row = change.row, let checksum = change.rowChecksum.flatMap(ScopeChecksum.fromWire) else {
                throw SynchroError.invalidResponse(message: "pull: an upsert of \(change.table)/\(id) without its row or checksum")
            }
            let record = ProtocolTwoConversions.record(table: change.table, id: id, row: row, schema: schema)
            try writer.merger.write(record)
            // 0.3.0 sends a row soft-deleted since its change as an upsert: it is a tombstone,
            // which no scope holds (its delete follows).
            guard record.deletedAt == nil else {
                try writer.flush()
                try ScopeState.untag(change.scope, table: change.table, id: id, keepingRow: true, schema: schema, in: db)
                return
            }
            try writer.tagger.tag(change.scope, table: change.table, id: id, checksum: checksum, generation: generation)
        default:
            // A tombstone marks the local row deleted (unless a local change waits for it); a
            // row this device never had is not brought in just to be deleted.
            try writer.flush()
            let deletedAt = change.row.flatMap { row in schema.timestampColumns(of: change.table).flatMap { row[$0.deletedAt]?.stringValue } }
            let tombstone = deletedAt != nil
            if let deletedAt {
                try writer.merger.applier.markDeleted(table: change.table, id: id, at: deletedAt, in: db)
            }
            try ScopeState.untag(change.scope, table: change.table, id: id, keepingRow: tombstone, schema: schema, in: db)
        }
    }

    /// The record id in `pk` (its one column, the table's key), lower-cased as the server keys
    /// rows.
    static func recordID(_ pk: [String: String], table: String, schema: LocalSchema) -> String? {
        guard let key = schema.primaryKey(of: table) else { return pk.values.first }
        return pk[key] ?? pk.values.first
    }

    // MARK: - Push (§3.2)

    /// A push answer: its `accepted` list read by ``TreeReading`` and the rest (the time, the
    /// rejections, usually none) decoded; or, where the list cannot be read so, the whole answer
    /// decoded through `Codable`, which says what is wrong.
    static func pushAnswer(_ body: Data, answering request: APIRequest, api: APIClient) throws -> MutationPushResponse {
        if case .object(var members)? = try? JSONValue.parse(body), let accepted = TreeReading.array(members["accepted"], AcceptedMutation.init(tree:)) {
            members["accepted"] = .array([])
            var answer = try api.decode(MutationPushResponse.self, fromParsed: .object(members), answering: request)
            answer.accepted = accepted
            return answer
        }
        return try api.decode(MutationPushResponse.self, from: body, answering: request)
    }

    /// Sends one batch as protocol-2 mutations and answers in protocol 1's terms.
    func pushBatchV2(_ outgoing: [OutgoingChange], schema: LocalSchema) async throws -> PushResponse {
        let sent = outgoing.map { (id: RejectedMutations.mutationID(of: $0.pending), outgoing: $0) }
        // `POST /sync/push` as ``SynchroV2API/Sync/push(_:)`` sends it, its body written directly.
        let writer = MutationPushBody(schema: schema)
        let body: Data
        do {
            body = try writer.json(clientID: config.clientID, batchID: UUID().uuidString.lowercased(), sent: sent)
        } catch {
            throw SelfDBError.invalidArgument("could not encode the request body: \(error)")
        }
        let request = APIRequest(method: .post, path: "/sync/push", auth: .bearer, body: .json(body))
        let answer = try Self.pushAnswer(try await apiV2.api.sendForBytes(request), answering: request, api: apiV2.api)
        return ProtocolTwoConversions.response(answer, sent: sent, schema: schema)
    }
}

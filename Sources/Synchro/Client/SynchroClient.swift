import Foundation
import GRDB
import SelfDBRuntime

/// An offline-first SQLite database that syncs with a Synchro server.
///
/// The app reads and writes plain SQL; writes to synced tables are recorded by triggers and
/// pushed, the server's changes are pulled in, and every device of a user converges.
///
/// ```swift
/// let client = try SynchroClient(config: SynchroConfig(
///     dbPath: path, serverURL: url, authProvider: { try await token() },
///     clientID: deviceID, appVersion: "1.0.0"))
/// try await client.start()
/// try client.execute("INSERT INTO tasks (id, title, user_id) VALUES (?, ?, ?)",
///                    params: [UUID().uuidString, "Review proposal", userID])
/// ```
///
/// Every method may be called from any thread. Reads and writes are synchronous (GRDB's
/// `DatabasePool`, WAL mode: reads never wait for writes); sync runs in the background.
public final class SynchroClient: Sendable {
    /// The configuration the client was made with.
    public let config: SynchroConfig
    let database: DatabasePool
    let engine: SyncEngine
    let observations: ObservationQueue
    /// Set once `close()` has closed the file: a closed GRDB connection must not be touched
    /// again (it crashes), and closing twice is allowed.
    private let closed = Locked(false)

    /// Opens (or creates) the database at `config.dbPath` — from `config.seedDatabasePath`
    /// when nothing is there yet. The synced tables are those of the schema last fetched from
    /// the server (or the seed's); a new database has none until `start()`.
    public convenience init(config: SynchroConfig) throws {
        try self.init(config: config, transport: platformHTTPTransport())
    }

    /// Opens the database with another HTTP transport (tests, custom networking).
    public init(config: SynchroConfig, transport: any HTTPTransport) throws {
        self.config = config
        var configuration = Configuration()
        let logFold = LogFoldState()
        let replacedChecksums = ReplacedChecksums()
        configuration.prepareDatabase { db in
            db.add(function: TimestampFunction.function)
            // The writer keeps a sync's working set (rows, pending queue, scope tags) in 8 MB
            // instead of SQLite's 2 MB, which applying 10,000 pulled rows outgrew and then read
            // back from the file page by page. SQLite takes the memory only as pages are used.
            // Readers start a new cache at each change of the file: theirs stays as it is.
            // Its statement journals (what undoes one statement of many rows that fails
            // halfway) stay in memory too: in a temporary file, a page's statements of 64 rows
            // spilled past SQLite's 64 KiB and wrote more than they saved.
            if !db.configuration.readonly {
                try db.execute(sql: "PRAGMA cache_size = -8192; PRAGMA temp_store = MEMORY")
                // Every commit leaves frames in the log for close() to fold (LogFoldState).
                db.add(transactionObserver: CommitWatch(logFold), extent: .databaseLifetime)
                // Only the writer tags provenance (ScopeState.Tagger).
                db.add(function: replacedChecksums.function)
            }
        }
        // Sync and app writes wait for each other instead of failing.
        configuration.busyMode = .timeout(SyncEngine.busyTimeoutSeconds)
        // Releasing memory (after a sync that wrote, and on iOS memory warnings) empties the
        // readers' caches instead of closing them: the app's next read does not pay an open.
        configuration.persistentReadOnlyConnections = true
        do {
            try SeedDatabase.copyIfNeeded(from: config.seedDatabasePath, to: config.dbPath, logger: config.logger)
            let pool = try DatabasePool(path: config.dbPath, configuration: configuration)
            let schema = try pool.write { db -> LocalSchema? in
                try MetaStore.install(in: db)
                try ScopeState.install(in: db)
                try RejectedMutations.install(in: db)
                try SeedDatabase.adoptOfficialFormat(in: db)
                let schema = try LocalSchema.load(from: db)?.schema
                for table in schema?.tables ?? [] where try !ChangeTriggers.areCurrent(for: table, in: db) {
                    try ChangeTriggers.install(for: table, in: db)
                }
                return schema
            }
            database = pool
            engine = SyncEngine(config: config, database: pool, schema: schema, transport: transport, logFold: logFold, replacedChecksums: replacedChecksums)
        } catch let error as SynchroError {
            throw error
        } catch {
            throw SynchroError.databaseError(underlying: error)
        }
        observations = ObservationQueue()
    }

    /// Stops sync and closes the database; the client cannot be used afterwards.
    public func close() throws {
        engine.stop()
        observations.cancelAll()
        // Claimed atomically: two threads closing at once close the file once.
        let claimed = closed.withLock { closed -> Bool in
            defer { closed = true }
            return !closed
        }
        guard claimed else { return }
        // GRDB closes the writer before the readers, so SQLite never folds the WAL back into
        // the file on close; done here, the file alone is the whole database (a copy of it
        // can seed another device). Busy readers only make it partial: not an error. Sync
        // cycles that wrote fold it in the background (SyncEngine.foldWriteAheadLogSoon), and
        // idle cycles and warm starts write nothing, so there is usually nothing to fold, and
        // nothing is done. A fold queued and not yet run has not marked the log folded: this
        // one then runs after it (the writer's queue keeps the order), and finds nothing left.
        // Passive: the log file stays (see foldWriteAheadLogSoon).
        if engine.logFold.close() {
            _ = try? database.writeWithoutTransaction { db in try db.checkpoint(.passive) }
        }
        do {
            try database.close()
        } catch {
            closed.withLock { $0 = false }
            throw SynchroError.databaseError(underlying: error)
        }
    }

    /// Local changes not yet accepted by the server (one per record, however often it was
    /// written). Writes still in the change log are folded first, which waits for a sync
    /// transaction under way; otherwise this only reads.
    public func pendingChangeCount() throws -> Int {
        try databaseOperation {
            // A read, unless writes wait in the change log: then their fold (a write) first.
            if let count = try database.read({ db in try PendingQueue.count(in: db) }) { return count }
            return try database.write { db in
                try ChangeLog.fold(in: db)
                return try PendingQueue.count(in: db) ?? 0
            }
        }
    }

    /// Runs a database operation, reporting its failure as ``SynchroError/databaseError(underlying:)``
    /// — or, when it names a table that does not exist, as ``SynchroError/schemaNotLoaded``
    /// (no schema yet) or ``SynchroError/tableNotSynced(_:)``.
    func databaseOperation<T>(_ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch let error as SynchroError {
            throw error
        } catch let error as DatabaseError {
            if let message = error.message, message.hasPrefix("no such table: ") {
                let table = String(message.dropFirst("no such table: ".count))
                throw engine.schema.current == nil ? SynchroError.schemaNotLoaded : SynchroError.tableNotSynced(table)
            }
            throw SynchroError.databaseError(underlying: error)
        } catch {
            throw SynchroError.databaseError(underlying: error)
        }
    }
}

import Foundation
import GRDBSQLite
import SelfDBStore

/// An SQLite database whose tables replicate between nodes with per-column
/// last-writer-wins: write with plain SQL, exchange `getChangesSince` / `mergeChanges`.
///
/// ```swift
/// let db = try CRDTSQLite<Int64>(path: "myapp.db", nodeId: 1)
/// try db.execute("CREATE TABLE users (id INTEGER PRIMARY KEY, name TEXT, email TEXT)")
/// try db.enableCRDT(for: "users")
/// try db.execute("INSERT INTO users (name, email) VALUES ('Alice', 'alice@example.com')")
/// let changes = try db.getChangesSince(0)
/// let accepted = try other.mergeChanges(changes)
/// ```
///
/// **Semantics.** Each tracked cell has `(columnVersion, dbVersion, nodeId)`; a remote change
/// wins when that triple is strictly greater, so merges are idempotent and order-independent.
/// The clock is a Lamport clock: a local commit takes the next value, however many rows it
/// writes (all its changes carry that `dbVersion`; a rolled-back transaction takes none), and
/// a merge first raises it to the largest incoming `dbVersion`. Records carry a causal length — odd while alive, even once deleted, higher
/// wins: a delete beats concurrent column edits, and inserting the same id after a delete
/// resurrects it (causal length + 1) with fresh column versions. The change feed reads a
/// local sequence that also advances on merges, so a relay hands on what it merged.
///
/// **Mechanics.** Triggers record metadata inside the writer's own transaction, so a crash
/// never commits a row without it: one metadata row per record (`_crdt_rows`, its column
/// versions packed in a BLOB), written by one statement per row write. The triggers call SQL
/// functions this package registers on the connection (the transaction's version, the feed
/// sequence); every connection `SelfDBStore.SQLite` opens in the process once a `CRDTSQLite`
/// exists gets them too, so writes from another such connection to the same file are
/// tracked the same way. **Connections opened by anything else** (another library, the sqlite3 shell) can read
/// tracked tables but cannot write them: the statement fails whole with "no such function:
/// crdt_…" and nothing is written. Merges write with the triggers stood down by a flag of
/// the connection (not dropped, so prepared statements stay valid), inside a savepoint, so
/// they also work inside the caller's transaction. `_crdt_records` and `_crdt_columns` are
/// views of the metadata in the first layout's shape, for inspection; files written in that
/// layout are migrated when opened. `execute` lets ALTER TABLE … ADD COLUMN
/// through (tracking picks the column up) and refuses DROP/RENAME of tracked tables and
/// columns.
///
/// **Threading.** Not `Sendable`: use an instance from one task or thread at a time.
public final class CRDTSQLite<RecordID: CRDTRecordID> {
    /// This node's id (unique among the nodes that sync).
    public let nodeId: UInt64
    /// The underlying connection (the SQLiteZero API), for queries.
    public let connection: SQLite

    let statements: StatementCache
    /// The tracking functions' state on `connection` (merging flag, the transaction's clock).
    let tracking: TrackingContext
    var tables: [String: TrackedTable] = [:]

    /// Opens (or creates) the database at `path` as node `nodeId`.
    public init(path: String, nodeId: UInt64) throws {
        guard nodeId <= UInt64(Int64.max) else { throw CRDTError.invalidChange("node id \(nodeId) is larger than Int64.max") }
        // Before the first connection: from now on every SelfDBStore connection can write
        // tracked tables.
        _ = TrackingFunctions.registered
        do {
            connection = try SQLite(path)
        } catch {
            throw CRDTError(error)
        }
        guard let handle = connection.rawHandle else { throw CRDTError.databaseOpenFailed(path, SQLITE_MISUSE) }
        // The connection got functions of its own from the setup; these replace them with a
        // context this object can reach (for the merging flag and the merge's clock).
        tracking = TrackingContext(handle: handle)
        let code = TrackingFunctions.install(on: handle, context: tracking)
        guard code == SQLITE_OK else { throw CRDTError.databaseOpenFailed(path, code) }
        self.nodeId = nodeId
        statements = StatementCache(connection: connection)
        try migrateFirstLayout()
        try run { [connection] in
            try connection.executeScript(Self.metadataSchema)
            try connection.execute("INSERT OR IGNORE INTO _crdt_state (id, node_id, clock, seq) VALUES (1, ?, 0, 0)", Int64(nodeId))
            // An old file opened by a new node id must write with that id.
            try connection.execute("UPDATE _crdt_state SET node_id = ?", Int64(nodeId))
        }
        try loadTrackedTables()
    }

    // MARK: - The note's API

    /// Starts tracking `tableName` (idempotent). It needs a single-column primary key of the
    /// record id type: INTEGER for `Int64`, BLOB for `UUID`. Existing rows get metadata.
    public func enableCRDT(for tableName: String) throws {
        guard let canonical = try run({ try connection.execute("SELECT name FROM sqlite_master WHERE type = 'table' AND name = ? COLLATE NOCASE", tableName).all().first?["name"] as String? }) else {
            throw CRDTError.tableNotFound(tableName)
        }
        guard !canonical.hasPrefix("_crdt_") else { throw CRDTError.unsupportedPrimaryKey(table: canonical, reason: "CRDT metadata tables cannot be tracked") }
        let table = try run {
            try connection.transaction {
                let shape = try describe(canonical, id: 0)
                try connection.execute("INSERT INTO _crdt_tables (name, pk) VALUES (?, ?) ON CONFLICT (name) DO UPDATE SET pk = excluded.pk", shape.name, shape.primaryKey)
                let id: Int64 = try connection.execute("SELECT id FROM _crdt_tables WHERE name = ?", shape.name).one()[0] ?? 0
                let table = try describe(canonical, id: id)
                try save(table)
                try backfill(table)
                return table
            }
        }
        tables[table.name] = table
        statements.clear()
    }

    /// Runs SQL (one or more statements). Writes to tracked tables are tracked. ALTER TABLE …
    /// ADD COLUMN on a tracked table extends tracking to the column; dropping or renaming a
    /// tracked table or column is refused with ``CRDTError/unsupportedSchemaChange(_:)`` and
    /// leaves the schema as it was.
    public func execute(_ sql: String) throws {
        guard Self.mayChangeSchema(sql), !tables.isEmpty else {
            try run { try connection.executeScript(sql) }
            return
        }
        do {
            try run {
                try connection.transaction {
                    try connection.executeScript(sql)
                    try refreshTrackedTables()
                }
            }
        } catch CRDTError.executionFailed(_, let message, _) where message.contains("_crdt_") {
            // SQLite itself refused: the change would break a tracking trigger.
            throw CRDTError.unsupportedSchemaChange(message)
        }
        statements.clear()
    }

    /// Prepares a statement for the sqlite3 C API (`sqlite3_bind_*`, `sqlite3_step`); the
    /// caller finalizes it with `sqlite3_finalize`. Writes through it are tracked.
    public func prepare(_ sql: String) throws -> OpaquePointer {
        var statement: OpaquePointer?
        let code = sqlite3_prepare_v2(connection.rawHandle, sql, -1, &statement, nil)
        guard code == SQLITE_OK, let statement else {
            let message = connection.rawHandle.map { String(cString: sqlite3_errmsg($0)) } ?? "connection closed"
            throw CRDTError.prepareFailed(sql, message, code)
        }
        return statement
    }

    /// The Lamport clock: the `dbVersion` of the latest local commit or merged change (inside
    /// a transaction that wrote, the version its changes carry).
    public var clock: UInt64 {
        get throws { UInt64(max(0, try run { try tracking.clock() })) }
    }

    /// Deleted records still remembered as tombstones, across all tracked tables.
    public var tombstoneCount: Int {
        get throws {
            Int(try run { try statements.scalar("SELECT count(*) FROM _crdt_rows WHERE cl % 2 = 0")?.intValue ?? 0 })
        }
    }

    /// The tracked tables' names.
    public var trackedTables: [String] { tables.keys.sorted() }

    // MARK: - Internal

    /// Runs `body`, turning store errors into `CRDTError`s.
    func run<T>(_ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch {
            throw CRDTError(error)
        }
    }

    private func loadTrackedTables() throws {
        let known = try run { try connection.execute("SELECT id, name FROM _crdt_tables ORDER BY name").all() }
        for row in known {
            guard let id: Int64 = row["id"], let name: String = row["name"] else { throw CRDTError.unexpectedNullValue("_crdt_tables") }
            tables[name] = try describe(name, id: id)
        }
        // Columns added by another connection since: bring the triggers up to date.
        try run { try connection.transaction { try refreshTrackedTables() } }
    }

    /// Re-reads each tracked table; refuses lost tables/columns; refreshes triggers when
    /// columns were added.
    private func refreshTrackedTables() throws {
        for (name, known) in tables {
            let exists = try connection.execute("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?", name).all().isEmpty == false
            guard exists else { throw CRDTError.unsupportedSchemaChange("table \(name) is tracked and was dropped or renamed") }
            let current = try describe(name, id: known.id)
            if current.primaryKey != known.primaryKey {
                throw CRDTError.unsupportedSchemaChange("the primary key of \(name) changed")
            }
            if let lost = known.columns.first(where: { !current.columns.contains($0) }) {
                throw CRDTError.unsupportedSchemaChange("column \(lost) of \(name) was dropped or renamed")
            }
            if current.columns != known.columns {
                try save(current)
                tables[name] = current
            }
        }
    }

    /// Records the table's columns (for the inspection view) and (re)creates its triggers.
    func save(_ table: TrackedTable) throws {
        let columns = String(decoding: try JSONEncoder().encode(table.columns), as: UTF8.self)
        try connection.execute("UPDATE _crdt_tables SET columns = ? WHERE id = ?", columns, table.id)
        try connection.executeScript(table.triggerScript)
    }

    /// Metadata for the rows that have none (rows written before tracking began), as one
    /// local write: one tick, one feed sequence.
    private func backfill(_ table: TrackedTable) throws {
        guard (try connection.execute(table.untrackedRowsQuery).one()[0] as Int64?) == 1 else { return }
        let version = try tracking.version()
        let node = try tracking.node()
        let sequence = try tracking.nextSequence()
        try connection.executeScript(table.backfill(version: version, node: node, sequence: sequence))
    }

    func describe(_ name: String, id: Int64) throws -> TrackedTable {
        let rows = try run { try connection.execute("SELECT name, type, pk FROM pragma_table_info(?) ORDER BY cid", name).all() }
        let keys = rows.filter { ($0["pk"] as Int?) ?? 0 > 0 }
        guard keys.count == 1, let key: String = keys[0]["name"] else {
            throw CRDTError.unsupportedPrimaryKey(table: name, reason: keys.isEmpty ? "it has no primary key" : "its primary key has \(keys.count) columns")
        }
        guard RecordID.accepts(declaredType: keys[0]["type"] ?? "") else { throw CRDTError.invalidRecordIDType }
        let columns = rows.compactMap { $0["name"] as String? }.filter { $0 != key }
        return TrackedTable(id: id, name: name, primaryKey: key, columns: columns)
    }

    /// Cheap screen for statements that could alter the schema; only those pay for the
    /// transaction and the check after them.
    private static func mayChangeSchema(_ sql: String) -> Bool {
        let lowered = sql.lowercased()
        return lowered.contains("alter") || lowered.contains("drop")
    }
}

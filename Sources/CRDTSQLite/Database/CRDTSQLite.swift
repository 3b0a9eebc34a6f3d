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
/// The clock is a Lamport clock: every tracked row write takes the next value (a transaction
/// writing n rows advances it by n), and a merge first raises it to the largest incoming
/// `dbVersion`. Records carry a causal length — odd while alive, even once deleted, higher
/// wins: a delete beats concurrent column edits, and inserting the same id after a delete
/// resurrects it (causal length + 1) with fresh column versions. The change feed reads a
/// local sequence that also advances on merges, so a relay hands on what it merged.
///
/// **Mechanics.** Triggers record metadata inside the writer's own transaction, so a crash
/// never commits a row without it; writes from other connections to the same file are
/// tracked the same way. Merges write with the triggers stood down by a flag in a one-row
/// control table (not dropped, so prepared statements stay valid), inside a savepoint, so
/// they also work inside the caller's transaction. `execute` lets ALTER TABLE … ADD COLUMN
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
    var tables: [String: TrackedTable] = [:]

    /// Opens (or creates) the database at `path` as node `nodeId`.
    public init(path: String, nodeId: UInt64) throws {
        guard nodeId <= UInt64(Int64.max) else { throw CRDTError.invalidChange("node id \(nodeId) is larger than Int64.max") }
        do {
            connection = try SQLite(path)
        } catch {
            throw CRDTError(error)
        }
        self.nodeId = nodeId
        statements = StatementCache(connection: connection)
        try run { [connection] in
            try connection.executeScript(Self.metadataSchema)
            try connection.execute("INSERT OR IGNORE INTO _crdt_state (id, node_id, clock, seq, merging) VALUES (1, ?, 0, 0, 0)", Int64(nodeId))
            // A crash cannot leave the flag set (a merge sets it inside its savepoint), but an
            // old file opened by a new node id must write with that id.
            try connection.execute("UPDATE _crdt_state SET node_id = ?, merging = 0", Int64(nodeId))
        }
        try loadTrackedTables()
    }

    /// The state row holds the clock and the feed's sequence. SQLite turns an integer
    /// overflow into a REAL, so the CHECK makes `clock + 1` past Int64.max fail the write
    /// (reported as ``CRDTError/clockOverflow``) instead of wrapping or losing precision.
    static var metadataSchema: String {
        """
        CREATE TABLE IF NOT EXISTS _crdt_state (id INTEGER PRIMARY KEY CHECK (id = 1), node_id INTEGER NOT NULL, clock INTEGER NOT NULL, seq INTEGER NOT NULL, merging INTEGER NOT NULL DEFAULT 0, CONSTRAINT crdt_clock_overflow CHECK (typeof(clock) = 'integer' AND typeof(seq) = 'integer'));
        CREATE TABLE IF NOT EXISTS _crdt_tables (name TEXT PRIMARY KEY, pk TEXT NOT NULL);
        CREATE TABLE IF NOT EXISTS _crdt_records (tbl TEXT NOT NULL, pk NOT NULL, cl INTEGER NOT NULL, db_version INTEGER NOT NULL, node_id INTEGER NOT NULL, seq INTEGER NOT NULL, PRIMARY KEY (tbl, pk)) WITHOUT ROWID;
        CREATE INDEX IF NOT EXISTS _crdt_records_seq ON _crdt_records (seq);
        CREATE TABLE IF NOT EXISTS _crdt_columns (tbl TEXT NOT NULL, pk NOT NULL, col TEXT NOT NULL, col_version INTEGER NOT NULL, db_version INTEGER NOT NULL, node_id INTEGER NOT NULL, seq INTEGER NOT NULL, PRIMARY KEY (tbl, pk, col)) WITHOUT ROWID;
        CREATE INDEX IF NOT EXISTS _crdt_columns_seq ON _crdt_columns (seq);
        """
    }

    // MARK: - The note's API

    /// Starts tracking `tableName` (idempotent). It needs a single-column primary key of the
    /// record id type: INTEGER for `Int64`, BLOB for `UUID`. Existing rows get metadata.
    public func enableCRDT(for tableName: String) throws {
        guard let canonical = try run({ try connection.execute("SELECT name FROM sqlite_master WHERE type = 'table' AND name = ? COLLATE NOCASE", tableName).all().first?["name"] as String? }) else {
            throw CRDTError.tableNotFound(tableName)
        }
        guard !canonical.hasPrefix("_crdt_") else { throw CRDTError.unsupportedPrimaryKey(table: canonical, reason: "CRDT metadata tables cannot be tracked") }
        let table = try describe(canonical)
        try run {
            try connection.transaction {
                try connection.execute("INSERT OR REPLACE INTO _crdt_tables (name, pk) VALUES (?, ?)", table.name, table.primaryKey)
                try connection.executeScript(table.triggerScript)
                try connection.executeScript(table.backfillScript)
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

    /// The Lamport clock: the `dbVersion` of the latest local write or merged change.
    public var clock: UInt64 {
        get throws { UInt64(max(0, try state("clock"))) }
    }

    /// Deleted records still remembered as tombstones, across all tracked tables.
    public var tombstoneCount: Int {
        get throws {
            Int(try run { try statements.scalar("SELECT count(*) FROM _crdt_records WHERE cl % 2 = 0")?.intValue ?? 0 })
        }
    }

    /// The tracked tables' names.
    public var trackedTables: [String] { tables.keys.sorted() }

    // MARK: - Internal

    func state(_ column: String) throws -> Int64 {
        try run {
            guard let value = try statements.scalar("SELECT \(column) FROM _crdt_state WHERE id = 1")?.intValue else {
                throw CRDTError.unexpectedNullValue("_crdt_state.\(column)")
            }
            return value
        }
    }

    /// Runs `body`, turning store errors into `CRDTError`s.
    func run<T>(_ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch {
            throw CRDTError(error)
        }
    }

    private func loadTrackedTables() throws {
        let names = try run { try connection.execute("SELECT name FROM _crdt_tables ORDER BY name").all().compactMap { $0["name"] as String? } }
        for name in names {
            let table = try describe(name)
            tables[name] = table
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
            let current = try describe(name)
            if current.primaryKey != known.primaryKey {
                throw CRDTError.unsupportedSchemaChange("the primary key of \(name) changed")
            }
            if let lost = known.columns.first(where: { !current.columns.contains($0) }) {
                throw CRDTError.unsupportedSchemaChange("column \(lost) of \(name) was dropped or renamed")
            }
            if current.columns != known.columns {
                try connection.executeScript(current.triggerScript)
                tables[name] = current
            }
        }
    }

    private func describe(_ name: String) throws -> TrackedTable {
        let rows = try run { try connection.execute("SELECT name, type, pk FROM pragma_table_info(?) ORDER BY cid", name).all() }
        let keys = rows.filter { ($0["pk"] as Int?) ?? 0 > 0 }
        guard keys.count == 1, let key: String = keys[0]["name"] else {
            throw CRDTError.unsupportedPrimaryKey(table: name, reason: keys.isEmpty ? "it has no primary key" : "its primary key has \(keys.count) columns")
        }
        guard RecordID.accepts(declaredType: keys[0]["type"] ?? "") else { throw CRDTError.invalidRecordIDType }
        let columns = rows.compactMap { $0["name"] as String? }.filter { $0 != key }
        return TrackedTable(name: name, primaryKey: key, columns: columns)
    }

    /// Cheap screen for statements that could alter the schema; only those pay for the
    /// transaction and the check after them.
    private static func mayChangeSchema(_ sql: String) -> Bool {
        let lowered = sql.lowercased()
        return lowered.contains("alter") || lowered.contains("drop")
    }
}

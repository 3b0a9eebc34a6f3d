import GRDB
import GRDBBinding

/// The client's protocol-2 state, in the same transactions as the rows it describes: the
/// assigned scopes with their cursors and checksums, and which scopes hold each local row, with
/// the row checksum the server sent (provenance). A row leaves the local database only when no
/// scope holds it any more, and never through the change triggers (no mutation, no tombstone).
enum ScopeState {
    /// Creates the tables when missing. The provenance table is keyed by its primary key alone
    /// (`WITHOUT ROWID`): every pulled row adds an entry, and a rowid table would write three
    /// B-trees per entry (rows, key, record index) instead of two. A file made before keeps
    /// its table as it is.
    static func install(in db: Database) throws {
        try db.execute(
            sql: """
                CREATE TABLE IF NOT EXISTS _synchro_scopes (
                    scope_id TEXT PRIMARY KEY NOT NULL,
                    cursor TEXT,
                    checksum TEXT,
                    generation INTEGER NOT NULL DEFAULT 0,
                    local_checksum INTEGER
                );
                CREATE TABLE IF NOT EXISTS _synchro_scope_rows (
                    scope_id TEXT NOT NULL,
                    table_name TEXT NOT NULL,
                    record_id TEXT NOT NULL COLLATE NOCASE,
                    checksum INTEGER NOT NULL,
                    generation INTEGER NOT NULL,
                    PRIMARY KEY (scope_id, table_name, record_id)
                ) WITHOUT ROWID;
                CREATE INDEX IF NOT EXISTS _synchro_scope_rows_record ON _synchro_scope_rows(table_name, record_id);
                CREATE TABLE IF NOT EXISTS _synchro_unheld_candidates (
                    table_name TEXT NOT NULL,
                    record_id TEXT NOT NULL COLLATE NOCASE,
                    PRIMARY KEY (table_name, record_id)
                ) WITHOUT ROWID;
                """
        )
        try installLocalChecksum(in: db)
    }

    /// Every scope held, by id, with its cursor (nil: rebuild).
    static func scopes(in db: Database) throws -> [(id: String, cursor: String?)] {
        try Row.fetchAll(db, sql: "SELECT scope_id, cursor FROM _synchro_scopes ORDER BY scope_id").map { ($0["scope_id"], $0["cursor"]) }
    }

    static func add(_ scope: String, in db: Database) throws {
        // A new scope holds no rows: its sum is 0, known (unless rows were left under its id).
        try db.execute(
            sql: """
                INSERT INTO _synchro_scopes (scope_id, local_checksum)
                VALUES (?, CASE WHEN EXISTS (SELECT 1 FROM _synchro_scope_rows WHERE scope_id = ?) THEN NULL ELSE 0 END)
                ON CONFLICT (scope_id) DO NOTHING
                """,
            arguments: [scope, scope]
        )
    }

    /// Forgets `scope` and deletes the rows only it held.
    static func remove(_ scope: String, schema: LocalSchema, in db: Database) throws {
        let rows = try Row.fetchAll(db, sql: "SELECT table_name, record_id FROM _synchro_scope_rows WHERE scope_id = ?", arguments: [scope])
        // The scope first: its rows' triggers then have no sum to keep.
        try db.execute(sql: "DELETE FROM _synchro_scopes WHERE scope_id = ?", arguments: [scope])
        try db.execute(sql: "DELETE FROM _synchro_scope_rows WHERE scope_id = ?", arguments: [scope])
        for row in rows {
            try deleteIfOrphan(table: row["table_name"], id: row["record_id"], schema: schema, in: db)
        }
    }

    static func setCursor(_ cursor: String?, for scope: String, in db: Database) throws {
        try db.execute(sql: "UPDATE _synchro_scopes SET cursor = ? WHERE scope_id = ?", arguments: [cursor, scope])
    }

    /// Every scope with a null cursor: what a moved database (protocol 1 to 2) starts from.
    static func invalidateAll(in db: Database) throws {
        try db.execute(sql: "UPDATE _synchro_scopes SET cursor = NULL, checksum = NULL")
    }

    /// `scope` no longer holds the row; unless `keepingRow` (a tombstone the server sent, kept
    /// locally as deleted), the row goes when no scope holds it.
    static func untag(_ scope: String, table: String, id: String, keepingRow: Bool = false, schema: LocalSchema, in db: Database) throws {
        let removed = try Int64.fetchOne(
            db,
            sql: "DELETE FROM _synchro_scope_rows WHERE scope_id = ? AND table_name = ? AND record_id = ? RETURNING checksum",
            arguments: [scope, table, id]
        )
        if let removed { try changeLocalChecksum(of: scope, by: Int32(truncatingIfNeeded: removed), in: db) }
        if keepingRow {
            // Kept as a tombstone, or live when a local change made the tombstone wait.
            try markMayBeUnheld(table: table, id: id, in: db)
        } else {
            try deleteIfOrphan(table: table, id: id, schema: schema, in: db)
        }
    }

    /// The local row is not the server's copy any more (the server refused a change to it for
    /// good, and sent no row). Protocol 2 has no request for one row, so each scope holding it
    /// is rebuilt: its cursor and verified checksum are cleared now, in the settlement's
    /// transaction (durable: a process that dies first rebuilds on its next pull), and a pull
    /// page asked for before keeps them cleared (``advanceCursor(of:from:to:in:)``). The row's
    /// `updated_at` becomes the epoch, so the rebuild's merge writes the server's row over it
    /// whatever time the app wrote; a row the server no longer has in the scope goes when the
    /// rebuild ends. A row no scope holds goes now, unless a local change waits for it. Such
    /// refusals are rare (a bug, or a write the app should not make), and only they pay.
    static func distrust(table name: String, id: String, schema: LocalSchema, in db: Database) throws {
        let scopes = try String.fetchAll(db, sql: "SELECT scope_id FROM _synchro_scope_rows WHERE table_name = ? AND record_id = ?", arguments: [name, id])
        guard !scopes.isEmpty else {
            try deleteIfOrphan(table: name, id: id, schema: schema, in: db)
            return
        }
        for scope in scopes {
            try db.execute(sql: "UPDATE _synchro_scopes SET cursor = NULL, checksum = NULL WHERE scope_id = ?", arguments: [scope])
        }
        guard let table = schema.table(name) else { return }
        try db.execute(
            sql: "UPDATE \(table.name.quotedDatabaseIdentifier) SET \(table.updatedAt.quotedDatabaseIdentifier) = ? WHERE \(table.primaryKey.quotedDatabaseIdentifier) = ?",
            arguments: ["1970-01-01T00:00:00.000Z", id]
        )
    }

    /// Moves `scope`'s cursor to `cursor` if it still is `expected`, the one the page was
    /// asked with; a scope whose cursor was cleared since (``distrust(table:id:schema:in:)``)
    /// keeps it cleared. Returns whether it moved.
    static func advanceCursor(of scope: String, from expected: String?, to cursor: String?, in db: Database) throws -> Bool {
        try db.cachedStatement(sql: "UPDATE _synchro_scopes SET cursor = ? WHERE scope_id = ? AND cursor IS ?")
            .execute(binding: [cursor.databaseValue, scope.databaseValue, expected.databaseValue])
        return db.changesCount > 0
    }

    /// Deletes the local row when no scope holds it and no local change waits for it. Call
    /// with the sync lock held: the delete is cleanup, not a change to push.
    static func deleteIfOrphan(table name: String, id: String, schema: LocalSchema, in db: Database) throws {
        guard let table = schema.table(name) else { return }
        let held = try Bool.fetchOne(db, sql: "SELECT EXISTS (SELECT 1 FROM _synchro_scope_rows WHERE table_name = ? AND record_id = ?)", arguments: [name, id]) ?? false
        guard !held else { return }
        try db.execute(
            sql: """
                DELETE FROM \(table.name.quotedDatabaseIdentifier) WHERE \(table.primaryKey.quotedDatabaseIdentifier) = ?
                AND NOT EXISTS (SELECT 1 FROM _synchro_pending WHERE table_name = ? AND record_id = ? COLLATE NOCASE)
                """,
            arguments: [id, name, id]
        )
    }

    /// The server's checksum of `scope` when the rows it holds last added up to it (the
    /// `checksum` column); nil when unknown or when anything changed the provenance since.
    /// Whatever writes a scope's provenance clears it: a pull page that changes the scope, a
    /// rebuild's start, a distrusted row. A last page that leaves a scope untouched and sends
    /// this checksum again needs no sum of the scope's rows.
    static func verifiedChecksum(of scope: String, in db: Database) throws -> Int32? {
        let select = try db.cachedStatement(sql: "SELECT checksum FROM _synchro_scopes WHERE scope_id = ?")
        try select.bind([scope.databaseValue])
        return try String.fetchOne(select).flatMap(ScopeChecksum.parse)
    }

    static func setVerifiedChecksum(_ checksum: Int32, of scope: String, in db: Database) throws {
        try db.cachedStatement(sql: "UPDATE _synchro_scopes SET checksum = ? WHERE scope_id = ?")
            .execute(binding: [String(checksum).databaseValue, scope.databaseValue])
    }

    static func unverify(_ scope: String, in db: Database) throws {
        try db.cachedStatement(sql: "UPDATE _synchro_scopes SET checksum = NULL WHERE scope_id = ?").execute(binding: [scope.databaseValue])
    }

    /// Starts a rebuild of `scope`: a new generation, the cursor and checksum cleared, durably,
    /// so a rebuild cut short starts over. Returns the generation its rows are tagged with.
    static func beginRebuild(_ scope: String, in db: Database) throws -> Int64 {
        try db.execute(
            sql: "UPDATE _synchro_scopes SET generation = generation + 1, cursor = NULL, checksum = NULL WHERE scope_id = ?",
            arguments: [scope]
        )
        return try Int64.fetchOne(db, sql: "SELECT generation FROM _synchro_scopes WHERE scope_id = ?", arguments: [scope]) ?? 0
    }

    /// Ends a rebuild: drops what older generations tagged (deleting rows left unheld), and
    /// installs the cursor and checksum only when the rows held now match the server's
    /// checksum. Returns whether they did.
    static func finishRebuild(_ scope: String, generation: Int64, cursor: String, checksum: Int32, schema: LocalSchema, in db: Database) throws -> Bool {
        let stale = try Row.fetchAll(
            db,
            sql: "SELECT table_name, record_id FROM _synchro_scope_rows WHERE scope_id = ? AND generation < ?",
            arguments: [scope, generation]
        )
        try db.execute(sql: "DELETE FROM _synchro_scope_rows WHERE scope_id = ? AND generation < ?", arguments: [scope, generation])
        for row in stale {
            try deleteIfOrphan(table: row["table_name"], id: row["record_id"], schema: schema, in: db)
        }
        // Summed from the rows, not kept: a rebuild is where a sum gone wrong is put right.
        let sum = try summedChecksum(scope, in: db)
        try setLocalChecksum(sum, of: scope, in: db)
        guard sum == checksum else { return false }
        try db.execute(sql: "UPDATE _synchro_scopes SET cursor = ?, checksum = ? WHERE scope_id = ?", arguments: [cursor, String(checksum), scope])
        return true
    }

    static func generation(of scope: String, in db: Database) throws -> Int64 {
        try Int64.fetchOne(db, sql: "SELECT generation FROM _synchro_scopes WHERE scope_id = ?", arguments: [scope]) ?? 0
    }
}

import Foundation
import GRDB

/// The client's own tables, next to the app's: key/value state, the pending changes and the
/// sync lock. Every name starts with `_synchro_`, which apps must not use for their tables.
enum MetaStore {
    /// Keys of `_synchro_meta`.
    enum Key: String {
        case checkpoint
        case schemaVersion = "schema_version"
        case schemaHash = "schema_hash"
        /// The server's schema as last fetched (JSON), so the tables are known offline.
        case schemaJSON = "schema_json"
        case clientServerID = "client_server_id"
        case snapshotComplete = "snapshot_complete"
        /// The cursor of a snapshot under way, so a restart resumes it.
        case snapshotCursor = "snapshot_cursor"
        /// The Synchro protocol the server spoke last time (`1` or `2`); absent until known.
        case protocolVersion = "protocol_version"
        /// Protocol 2's scope-set version, stored with the scope changes it came with.
        case scopeSetVersion = "scope_set_version"
        /// Set when the database moved to a protocol-2 server: once every scope is rebuilt,
        /// rows no scope holds (and no local change needs) are removed.
        case pruneUnheldRows = "prune_unheld_rows"
        /// Set by a whole pass of ``ScopeState/pruneUnheld(schema:onlyIfDue:in:)``; removed by
        /// what may leave any row held by no scope (``MetaStore/markUnheldRowsPossible(in:)``).
        /// The frequent causes name their records instead (``ScopeState/markMayBeUnheld(table:id:in:)``):
        /// a pass over every row of the synced tables, on every cycle that pushed a row, held
        /// the writer for a time that grows with the data.
        case unheldRowsPruned = "unheld_rows_pruned"
    }

    /// Removes ``Key/unheldRowsPruned``: the schema changed. `_synchro_rejected_mutations`
    /// removes it with a trigger when the app clears a rejection (``RejectedMutations/install(in:)``).
    static func markUnheldRowsPossible(in db: Database) throws {
        try set(.unheldRowsPruned, nil, in: db)
    }

    static let pendingTable = "_synchro_pending"
    static let lockTable = "_synchro_lock"

    /// Creates the tables when missing; safe to run at every open.
    static func install(in db: Database) throws {
        try db.execute(
            sql: """
                CREATE TABLE IF NOT EXISTS _synchro_meta (key TEXT PRIMARY KEY NOT NULL, value TEXT);
                CREATE TABLE IF NOT EXISTS _synchro_pending (
                    -- The rowid, so a new pending row takes max + 1 at the table's end with
                    -- no index of its own to maintain. Every local write of the record moves
                    -- it to a new max when the change log is folded; a push settles a row only if it still has the seq
                    -- that was sent (inflight_seq), so an edit made while the push was in
                    -- flight is pushed next instead of being lost.
                    seq INTEGER PRIMARY KEY,
                    table_name TEXT NOT NULL,
                    record_id TEXT NOT NULL,
                    operation TEXT NOT NULL,
                    base_updated_at TEXT,
                    client_updated_at TEXT NOT NULL,
                    inflight_seq INTEGER,
                    UNIQUE (table_name, record_id)
                );
                -- Holds one row while server data is applied, inside the same transaction,
                -- so the change triggers stand down.
                CREATE TABLE IF NOT EXISTS _synchro_lock (locked INTEGER NOT NULL);
                """
        )
        try db.execute(sql: ChangeLog.definition)
    }

    static func string(_ key: Key, in db: Database) throws -> String? {
        try String.fetchOne(db, sql: "SELECT value FROM _synchro_meta WHERE key = ?", arguments: [key.rawValue])
    }

    static func int64(_ key: Key, in db: Database) throws -> Int64 {
        try string(key, in: db).flatMap(Int64.init) ?? 0
    }

    /// Cached statements: a pull sets keys on every page, and a settled batch or a tombstone
    /// clears ``Key/unheldRowsPruned``.
    static func set(_ key: Key, _ value: String?, in db: Database) throws {
        if let value {
            try db.cachedStatement(sql: "INSERT INTO _synchro_meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value")
                .execute(arguments: [key.rawValue, value])
        } else {
            try db.cachedStatement(sql: "DELETE FROM _synchro_meta WHERE key = ?").execute(arguments: [key.rawValue])
        }
    }

    /// Moves the checkpoint forward only: a page applied twice, or out of order after a
    /// crash, never takes it back.
    static func advanceCheckpoint(to checkpoint: Int64, in db: Database) throws {
        if checkpoint > (try int64(.checkpoint, in: db)) {
            try set(.checkpoint, String(checkpoint), in: db)
        }
    }

    /// Runs `body` with the change triggers silenced and the change log folded (what the app
    /// wrote before is in the pending queue that `body` reads). Call inside a write
    /// transaction: the lock row then never outlives it, whatever `body` throws.
    static func withSyncLock<T>(_ db: Database, _ body: () throws -> T) throws -> T {
        try ChangeLog.fold(in: db)
        try db.execute(sql: "INSERT INTO _synchro_lock (locked) VALUES (1)")
        let result = try body()
        try db.execute(sql: "DELETE FROM _synchro_lock")
        return result
    }
}

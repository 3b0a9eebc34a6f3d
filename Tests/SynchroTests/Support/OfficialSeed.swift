import Foundation
import GRDB

@testable import Synchro

/// Writes a seed as the official generator does (`api/go/seeddb/seeddb.go` at 0.3.0: its
/// internal tables, `grdb_migrations`, tables, `_synchro_cdc_*` triggers and meta, statement
/// for statement), with the rows, scopes, cursors and row checksums a synced device of this
/// client holds — what the generator would read from a server database that issued them.
enum OfficialSeed {
    static func write(to path: String, from source: String) throws {
        let reader = try DatabaseQueue(path: source)
        guard let tables = try reader.read({ db in try LocalSchema.load(from: db) })?.raw else {
            throw SynchroError.schemaNotLoaded
        }
        let (version, hash) = try reader.read { db in
            (try MetaStore.int64(.schemaVersion, in: db), try MetaStore.string(.schemaHash, in: db) ?? "")
        }
        try reader.close()

        let queue = try DatabaseQueue(path: path)
        try queue.inDatabase { db in
            try db.execute(sql: "PRAGMA journal_mode = WAL")
            try db.execute(sql: internals)
            for identifier in ["synchro_v1", "synchro_v2_buckets", "synchro_v3_scopes", "synchro_v4_scope_integrity"] {
                try db.execute(sql: "INSERT OR IGNORE INTO grdb_migrations (identifier) VALUES (?)", arguments: [identifier])
            }
            for table in tables { try db.execute(sql: createTableSQL(table)) }
            try db.execute(sql: "ATTACH DATABASE ? AS source", arguments: [source])
            for table in tables {
                let columns = (table.columns ?? []).map(\.name.quotedDatabaseIdentifier).joined(separator: ", ")
                let name = table.tableName.quotedDatabaseIdentifier
                try db.execute(sql: "INSERT INTO main.\(name) (\(columns)) SELECT \(columns) FROM source.\(name)")
            }
            try db.execute(
                sql: """
                    INSERT INTO _synchro_scopes (scope_id, cursor, checksum, generation, local_checksum)
                        SELECT scope_id, cursor, checksum, 0, 0 FROM source._synchro_scopes;
                    INSERT INTO _synchro_scope_rows (scope_id, table_name, record_id, checksum, generation)
                        SELECT scope_id, table_name, record_id, checksum, 0 FROM source._synchro_scope_rows;
                    """
            )
            try db.execute(sql: "DETACH DATABASE source")
            for scope in try String.fetchAll(db, sql: "SELECT scope_id FROM _synchro_scopes") {
                let sums = try Int64.fetchAll(db, sql: "SELECT checksum FROM _synchro_scope_rows WHERE scope_id = ?", arguments: [scope])
                let local = sums.reduce(Int32(0)) { $0 ^ Int32(truncatingIfNeeded: $1) }
                try db.execute(sql: "UPDATE _synchro_scopes SET local_checksum = ? WHERE scope_id = ?", arguments: [local, scope])
            }
            for table in tables { try db.execute(sql: triggersSQL(table)) }
            let scopes = try String.fetchAll(db, sql: "SELECT scope_id FROM _synchro_scopes ORDER BY scope_id")
            let meta: [String: String] = [
                "schema_version": String(version),
                "schema_hash": hash,
                "local_schema": try localSchemaJSON(tables),
                "scope_set_version": "0",
                "known_buckets": String(decoding: try JSONSerialization.data(withJSONObject: scopes), as: UTF8.self),
                "snapshot_complete": scopes.isEmpty ? "0" : "1",
            ]
            for (key, value) in meta {
                try db.execute(
                    sql: "INSERT INTO _synchro_meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value",
                    arguments: [key, value]
                )
            }
            try db.execute(sql: "PRAGMA wal_checkpoint(TRUNCATE)")
        }
        try queue.close()
        for suffix in ["-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) }
    }

    /// `localTables()`: camelCase, `sqliteDefaultSQL` always null.
    private static func localSchemaJSON(_ tables: [SyncTable]) throws -> String {
        let objects: [[String: Any]] = tables.map { table in
            let key = table.primaryKey?.first ?? "id"
            return [
                "tableName": table.tableName,
                "updatedAtColumn": table.updatedAtColumn ?? "updated_at",
                "deletedAtColumn": table.deletedAtColumn ?? "deleted_at",
                "primaryKey": [key],
                "columns": (table.columns ?? []).map { column -> [String: Any] in
                    [
                        "name": column.name, "logicalType": column.logicalType.rawValue, "nullable": column.nullable,
                        "sqliteDefaultSQL": NSNull(), "isPrimaryKey": column.name == key,
                    ]
                },
            ]
        }
        return String(decoding: try JSONSerialization.data(withJSONObject: objects), as: UTF8.self)
    }

    private static func sqliteType(_ type: LogicalType) -> String {
        switch type {
        case .int, .int64, .boolean: "INTEGER"
        case .float: "REAL"
        case .bytes: "BLOB"
        default: "TEXT"
        }
    }

    private static func createTableSQL(_ table: SyncTable) -> String {
        let key = table.primaryKey?.first ?? "id"
        let columns = (table.columns ?? []).map { column in
            var definition = "\(column.name.quotedDatabaseIdentifier) \(sqliteType(column.logicalType))"
            if column.name == key { definition += " PRIMARY KEY" }
            if !column.nullable, column.name != key { definition += " NOT NULL" }
            return definition
        }
        return "CREATE TABLE IF NOT EXISTS \(table.tableName.quotedDatabaseIdentifier) (\(columns.joined(separator: ", ")))"
    }

    /// `cdcTriggerSQL` for a table with both timestamp columns.
    private static func triggersSQL(_ table: SyncTable) -> String {
        let name = table.tableName
        let quoted = name.quotedDatabaseIdentifier
        let key = (table.primaryKey?.first ?? "id").quotedDatabaseIdentifier
        let updated = (table.updatedAtColumn ?? "updated_at").quotedDatabaseIdentifier
        let deleted = (table.deletedAtColumn ?? "deleted_at").quotedDatabaseIdentifier
        let lock = "(SELECT value FROM _synchro_meta WHERE key = 'sync_lock') = '0'"
        let now = "strftime('%Y-%m-%dT%H:%M:%fZ', 'now')"
        return """
            CREATE TRIGGER "_synchro_cdc_insert_\(name)" AFTER INSERT ON \(quoted) WHEN \(lock)
            BEGIN
                INSERT INTO _synchro_pending_changes (record_id, table_name, operation, client_updated_at)
                VALUES (NEW.\(key), '\(name)', 'create', \(now))
                ON CONFLICT (table_name, record_id) DO UPDATE SET
                    operation = CASE WHEN _synchro_pending_changes.operation = 'delete' THEN 'update' ELSE _synchro_pending_changes.operation END,
                    client_updated_at = excluded.client_updated_at;
            END;
            CREATE TRIGGER "_synchro_cdc_update_\(name)" AFTER UPDATE ON \(quoted) WHEN \(lock)
            BEGIN
                INSERT INTO _synchro_pending_changes (record_id, table_name, operation, base_updated_at, client_updated_at)
                VALUES (NEW.\(key), '\(name)',
                    CASE WHEN NEW.\(deleted) IS NOT NULL AND OLD.\(deleted) IS NULL THEN 'delete' ELSE 'update' END,
                    OLD.\(updated), \(now))
                ON CONFLICT (table_name, record_id) DO UPDATE SET
                    operation = CASE
                        WHEN _synchro_pending_changes.operation = 'create' AND excluded.operation = 'update' THEN 'create'
                        WHEN _synchro_pending_changes.operation = 'create' AND excluded.operation = 'delete' THEN 'delete'
                        ELSE excluded.operation END,
                    base_updated_at = CASE
                        WHEN _synchro_pending_changes.operation = 'create' AND excluded.operation = 'delete' THEN NULL
                        ELSE COALESCE(_synchro_pending_changes.base_updated_at, excluded.base_updated_at) END,
                    client_updated_at = excluded.client_updated_at;
                DELETE FROM _synchro_pending_changes WHERE table_name = '\(name)' AND record_id = NEW.\(key)
                    AND operation = 'delete' AND base_updated_at IS NULL;
            END;
            CREATE TRIGGER "_synchro_cdc_delete_\(name)" BEFORE DELETE ON \(quoted) WHEN \(lock)
            BEGIN
                UPDATE \(quoted) SET \(deleted) = \(now) WHERE \(key) = OLD.\(key);
                SELECT RAISE(IGNORE);
            END;
            """
    }

    /// `createInternalTables`.
    private static let internals = """
        CREATE TABLE IF NOT EXISTS _synchro_pending_changes (
            record_id TEXT NOT NULL, table_name TEXT NOT NULL, operation TEXT NOT NULL, base_updated_at TEXT,
            client_updated_at TEXT NOT NULL, PRIMARY KEY (table_name, record_id));
        CREATE TABLE IF NOT EXISTS _synchro_meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
        CREATE TABLE IF NOT EXISTS grdb_migrations (identifier TEXT NOT NULL PRIMARY KEY);
        CREATE TABLE IF NOT EXISTS _synchro_bucket_members (
            bucket_id TEXT NOT NULL, table_name TEXT NOT NULL, record_id TEXT NOT NULL,
            checksum INTEGER NOT NULL DEFAULT 0, PRIMARY KEY (bucket_id, table_name, record_id));
        CREATE TABLE IF NOT EXISTS _synchro_bucket_checkpoints (bucket_id TEXT PRIMARY KEY, checkpoint INTEGER NOT NULL DEFAULT 0);
        CREATE TABLE IF NOT EXISTS _synchro_scopes (
            scope_id TEXT PRIMARY KEY, cursor TEXT, checksum TEXT, generation INTEGER NOT NULL DEFAULT 0,
            local_checksum INTEGER NOT NULL DEFAULT 0);
        CREATE TABLE IF NOT EXISTS _synchro_scope_rows (
            scope_id TEXT NOT NULL, table_name TEXT NOT NULL, record_id TEXT NOT NULL,
            checksum INTEGER NOT NULL DEFAULT 0, generation INTEGER NOT NULL DEFAULT 0,
            PRIMARY KEY (scope_id, table_name, record_id));
        CREATE INDEX IF NOT EXISTS idx_synchro_scope_rows_record ON _synchro_scope_rows (table_name, record_id);
        CREATE TABLE IF NOT EXISTS _synchro_rejected_mutations (
            mutation_id TEXT PRIMARY KEY, table_name TEXT NOT NULL, record_id TEXT NOT NULL, status TEXT NOT NULL,
            code TEXT NOT NULL, message TEXT, server_row_json TEXT, server_version TEXT,
            created_at TEXT NOT NULL, updated_at TEXT NOT NULL);
        CREATE INDEX IF NOT EXISTS idx_synchro_rejected_mutations_record ON _synchro_rejected_mutations (table_name, record_id);
        INSERT OR IGNORE INTO _synchro_meta (key, value) VALUES ('sync_lock', '0');
        INSERT OR IGNORE INTO _synchro_meta (key, value) VALUES ('checkpoint', '0');
        """
}

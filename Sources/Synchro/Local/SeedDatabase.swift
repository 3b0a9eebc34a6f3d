import Foundation
import GRDB
import Logging

/// `SynchroConfig.seedDatabasePath` (contract §5.10): a database to start from instead of an
/// empty one. A seed is a cache: its rows are there offline at once, and `start()` reconciles
/// it — its scopes go to connect with their cursors and continue with delta pulls; a scope
/// whose rows do not add up to the server's checksum is rebuilt.
///
/// Two forms are read: a copy of one of this client's own databases (used as it is), and the
/// Synchro seed generator's (`api/go/seeddb`) or the official client's, which
/// ``adoptOfficialFormat(in:)`` turns into this client's form at open.
enum SeedDatabase {
    /// Copies `seed` to `dbPath` when nothing is at `dbPath` and the seed exists. The copy is
    /// staged beside `dbPath` and made ready there (``prepare(_:)``) before it is moved into
    /// place, so a bad seed never leaves a half-copied or unusable file behind.
    static func copyIfNeeded(from seed: String?, to dbPath: String, logger: Logger) throws {
        guard let seed else { return }
        let files = FileManager.default
        guard !files.fileExists(atPath: dbPath) else { return }
        guard files.fileExists(atPath: seed) else {
            logger.info("synchro: no seed database at the configured path; starting from an empty database")
            return
        }
        let staging = dbPath + ".seed-\(UUID().uuidString)"
        do {
            try files.copyItem(atPath: seed, toPath: staging)
            try prepare(staging)
            // The `-wal`/`-shm` files of a database that is gone would be replayed into the seed.
            for suffix in ["-wal", "-shm"] { try? files.removeItem(atPath: dbPath + suffix) }
            try files.moveItem(atPath: staging, toPath: dbPath)
        } catch {
            for suffix in ["", "-wal", "-shm", "-journal"] { try? files.removeItem(atPath: staging + suffix) }
            throw SynchroError.databaseError(underlying: error)
        }
        logger.info("synchro: started the database from its seed")
    }

    /// Opens the staged copy (SQLite refuses a file that is not a database, `SQLITE_NOTADB`),
    /// converts the official form, and reads the stored schema back, so that a seed `init`
    /// cannot open fails here. Then folds the WAL into the file, which travels alone.
    private static func prepare(_ path: String) throws {
        let queue = try DatabaseQueue(path: path)
        try queue.write { db in
            try MetaStore.install(in: db)
            try adoptOfficialFormat(in: db)
            // A seed is a copy: its rows are checked against each scope's checksum on the first
            // pull, not trusted as verified (ScopeState.verifiedChecksum), and summed from the
            // rows it holds, not from what it kept (a copy may have been edited).
            if try db.tableExists("_synchro_scopes") {
                try db.execute(sql: "UPDATE _synchro_scopes SET checksum = NULL")
                try ScopeState.sumLocalChecksumsAgain(in: db)
            }
            _ = try LocalSchema.load(from: db)
        }
        try queue.writeWithoutTransaction { db in _ = try db.checkpoint(.truncate) }
        try queue.close()
    }

    /// Turns a database in the official client's form — meta `local_schema` (camelCase JSON) and
    /// no `schema_json`, change triggers `_synchro_cdc_*` that queue into
    /// `_synchro_pending_changes` — into this client's: the schema stored as this client stores
    /// it, the synced tables made again in this client's form (rows copied), this client's
    /// triggers instead of those (which would also turn the client's own cleanup deletes into
    /// soft deletes), queued changes moved over, and the file marked as a protocol-2 one so that
    /// its scope cursors are kept. Scopes, cursors and row checksums stay as they are. Does
    /// nothing for any other database; runs in `init`'s transaction, so it happens entirely or
    /// not at all.
    static func adoptOfficialFormat(in db: Database) throws {
        guard try MetaStore.string(.schemaJSON, in: db) == nil,
            let json = try String.fetchOne(db, sql: "SELECT value FROM _synchro_meta WHERE key = 'local_schema'")
        else { return }
        let tables = try JSONDecoder().decode([OfficialTable].self, from: Data(json.utf8)).map(\.syncTable)
        let version = try MetaStore.int64(.schemaVersion, in: db)
        let hash = try MetaStore.string(.schemaHash, in: db) ?? ""
        let schema = try LocalSchema(version: version, hash: hash, tables: tables)
        let official = try String.fetchAll(
            db,
            sql: "SELECT name FROM sqlite_master WHERE type = 'trigger' AND name LIKE '\\_synchro\\_cdc\\_%' ESCAPE '\\'"
        )
        for trigger in official { try db.execute(sql: "DROP TRIGGER \(LocalTableDDL.quote(trigger))") }
        // The generator declares the server's NOT NULLs and case-sensitive keys; the tables are
        // made again as this client makes synced tables, so seeded rows behave as synced ones.
        var staged: [(table: LocalTable, old: String)] = []
        for table in schema.tables where try db.tableExists(table.name) {
            let old = "_synchro_seed_\(table.name)"
            try db.execute(sql: "ALTER TABLE \(LocalTableDDL.quote(table.name)) RENAME TO \(LocalTableDDL.quote(old))")
            staged.append((table, old))
        }
        try schema.install(in: db, replacing: nil)
        try MetaStore.withSyncLock(db) {
            for (table, old) in staged {
                let present = Set(try LocalTableDDL.columns(of: old, in: db))
                let columns = table.columns.map(\.name).filter(present.contains).map(LocalTableDDL.quote).joined(separator: ", ")
                try db.execute(sql: "INSERT INTO \(LocalTableDDL.quote(table.name)) (\(columns)) SELECT \(columns) FROM \(LocalTableDDL.quote(old))")
                try db.execute(sql: "DROP TABLE \(LocalTableDDL.quote(old))")
            }
        }
        try LocalSchema.save(version: version, hash: hash, tables: tables, in: db)
        if try db.tableExists("_synchro_pending_changes") {
            try db.execute(
                sql: """
                    INSERT OR IGNORE INTO _synchro_pending (table_name, record_id, operation, base_updated_at, client_updated_at)
                    SELECT table_name, lower(record_id), operation, base_updated_at, client_updated_at
                    FROM _synchro_pending_changes ORDER BY client_updated_at;
                    DELETE FROM _synchro_pending_changes;
                    """
            )
        }
        // Its scopes' checksums are checked against its rows again, not trusted as verified, and
        // the sums of its rows are this client's own (its `local_checksum` is the official
        // client's bookkeeping, not NULL-able).
        if try db.tableExists("_synchro_scopes") {
            try db.execute(sql: "UPDATE _synchro_scopes SET checksum = NULL")
            try ScopeState.sumLocalChecksumsAgain(in: db)
        }
        try MetaStore.set(.protocolVersion, "2", in: db)
    }

    /// A table of the official client's `local_schema`.
    private struct OfficialTable: Decodable {
        struct Column: Decodable {
            var name: String
            var logicalType: String
            var nullable: Bool
            var sqliteDefaultSQL: String?
            var isPrimaryKey: Bool
        }

        var tableName: String
        var updatedAtColumn: String?
        var deletedAtColumn: String?
        var primaryKey: [String]?
        var columns: [Column]

        /// As protocol 2's manifest tables become `SyncTable`s (`ProtocolTwoConversions`).
        var syncTable: SyncTable {
            let key = primaryKey?.first ?? columns.first(where: \.isPrimaryKey)?.name ?? "id"
            return SyncTable(
                tableName: tableName,
                pushPolicy: .ownerOnly,
                dependencies: [],
                updatedAtColumn: updatedAtColumn.flatMap { $0.isEmpty ? nil : $0 },
                deletedAtColumn: deletedAtColumn.flatMap { $0.isEmpty ? nil : $0 },
                primaryKey: [key],
                columns: columns.map { column in
                    SyncColumn(
                        name: column.name,
                        dbType: column.logicalType,
                        logicalType: LogicalType(rawValue: column.logicalType),
                        nullable: column.nullable,
                        defaultKind: column.sqliteDefaultSQL == nil ? .none : .portable,
                        sqliteDefaultSql: column.sqliteDefaultSQL,
                        isPrimaryKey: column.name == key
                    )
                }
            )
        }
    }
}

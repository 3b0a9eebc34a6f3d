import EmulatorSupport
import Foundation
import GRDB

/// The sync server's own SQLite file (`synchro.sqlite` in the data directory): one table
/// per synced table, the change log, registered clients and the schema history.
///
/// Kept apart from `selfdb.sqlite` so that the SelfDB side's schema and migrations never
/// have to know about sync, and a sync database can be thrown away on its own.
package struct SynchroStore: Sendable {
    package let pool: DatabasePool

    /// `ownerIndexes`: keep each row table's index by owner, which protocol 1 reads its rows
    /// by (protocol 2 reads them through their scope memberships, and a push then writes one
    /// B-tree less per row); a store that has them keeps them.
    init(path: String, schema: SyncSchema, ownerIndexes: Bool) throws {
        var configuration = Configuration()
        configuration.busyMode = .timeout(10)
        configuration.prepareDatabase { db in
            // The writer keeps the pages a push touches (rows, memberships, log: random keys
            // across several B-trees) in 16 MB instead of SQLite's 2 MB, which a few thousand
            // rows outgrow: then every batch read its pages back from the file one by one. With
            // the client's writer cache (`SynchroClient`), the end-to-end benchmark's reads
            // went from 40,900 to 14,200 and its writes from 48,600 to 39,800 (strace -c).
            // Readers start a new cache at each change of the file; theirs stays as it is.
            if !db.configuration.readonly { try db.execute(sql: "PRAGMA cache_size = -16384") }
        }
        pool = try DatabasePool(path: path, configuration: configuration)
        try Self.migrator.migrate(pool)
        try pool.write { db in
            for table in schema.tables {
                try Self.createOrExtend(table, ownerIndex: ownerIndexes, in: db)
            }
        }
    }

    /// The version of the schema with `hash`: the latest version when its hash is the same,
    /// otherwise a new version one above the highest (so versions only grow, even when a
    /// spec goes back to an earlier shape).
    func schemaVersion(for hash: String) throws -> Int64 {
        try pool.write { db in
            let latest = try Row.fetchOne(
                db,
                sql: "SELECT version, hash FROM _synchro_schema_versions ORDER BY version DESC LIMIT 1"
            )
            if let latest, latest["hash"] as String == hash {
                return latest["version"] as Int64
            }
            let next = (latest?["version"] as Int64? ?? 0) + 1
            try db.execute(
                sql: "INSERT INTO _synchro_schema_versions (version, hash, created_at) VALUES (?, ?, ?)",
                arguments: [next, hash, SyncTimestamp.now().text]
            )
            return next
        }
    }

    private static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1") { db in
            try db.execute(
                sql: """
                    CREATE TABLE _synchro_settings (key TEXT PRIMARY KEY NOT NULL, value INTEGER NOT NULL);
                    CREATE TABLE _synchro_schema_versions (
                        version INTEGER PRIMARY KEY NOT NULL,
                        hash TEXT NOT NULL,
                        created_at TEXT NOT NULL
                    );
                    CREATE TABLE _synchro_changelog (
                        seq INTEGER PRIMARY KEY AUTOINCREMENT,
                        table_name TEXT NOT NULL,
                        record_id TEXT NOT NULL,
                        op TEXT NOT NULL,
                        owner_id TEXT NOT NULL,
                        created_at TEXT NOT NULL
                    );
                    CREATE INDEX _synchro_changelog_owner ON _synchro_changelog(owner_id, seq);
                    CREATE TABLE _synchro_clients (
                        user_id TEXT NOT NULL,
                        client_id TEXT NOT NULL,
                        id TEXT NOT NULL UNIQUE,
                        client_name TEXT,
                        platform TEXT NOT NULL,
                        app_version TEXT NOT NULL,
                        created_at TEXT NOT NULL,
                        last_sync_at TEXT,
                        last_pull_at TEXT,
                        last_pull_seq INTEGER,
                        PRIMARY KEY (user_id, client_id)
                    );
                    """
            )
        }
        return migrator
    }

    /// Creates the row table, or adds the columns a changed spec introduced. Columns a spec
    /// dropped stay in the file but are no longer read or served. No NOT NULL or CHECK
    /// constraints: the push path validates, and a later spec may loosen what an older one
    /// required.
    static func createOrExtend(_ table: SyncTable, ownerIndex: Bool, in db: Database) throws {
        let storage = SQLIdentifier.quote(table.storageName)
        if try db.tableExists(table.storageName) {
            let columns = try db.columns(in: table.storageName)
            if try !retypeIfChanged(table, existing: columns, in: db) {
                let existing = Set(columns.map(\.name))
                for column in table.columns where !existing.contains(column.name) {
                    try db.execute(
                        sql: "ALTER TABLE \(storage) ADD COLUMN \(SQLIdentifier.quote(column.name)) \(column.logicalType.sqliteAffinity)"
                    )
                }
            }
        } else {
            var definitions = ["_synchro_owner TEXT NOT NULL"]
            for column in table.columns {
                let key = column.isPrimaryKey ? " PRIMARY KEY NOT NULL" : ""
                definitions.append("\(SQLIdentifier.quote(column.name)) \(column.logicalType.sqliteAffinity)\(key)")
            }
            try db.execute(sql: "CREATE TABLE \(storage) (\(definitions.joined(separator: ", ")))")
        }
        if ownerIndex {
            try db.execute(
                sql: "CREATE INDEX IF NOT EXISTS \(SQLIdentifier.quote(table.storageName + "_owner")) "
                    + "ON \(storage)(_synchro_owner, \(SQLIdentifier.quote(table.primaryKey)))"
            )
        }
    }
}

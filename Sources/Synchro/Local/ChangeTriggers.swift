import GRDB

/// The triggers that record the app's writes to a synced table: each appends one row to
/// ``ChangeLog`` (the record as written, the operation, the base), which a fold coalesces into
/// the pending queue later. They stand down while `_synchro_lock` holds a row (server data
/// being applied).
///
/// An update that sets `deleted_at` is a delete, one that clears it a create (the server
/// resurrects the record); an update's or a delete's base is the `updated_at` it replaced.
enum ChangeTriggers {
    static func names(of table: String) -> [String] {
        ["insert", "update", "delete"].map { "_synchro_\(table)_\($0)" }
    }

    static func drop(for table: String, in db: Database) throws {
        for name in names(of: table) {
            try db.execute(sql: "DROP TRIGGER IF EXISTS \(name.quotedDatabaseIdentifier)")
        }
    }

    static func install(for table: LocalTable, in db: Database) throws {
        try drop(for: table.name, in: db)
        let names = names(of: table.name)
        let quoted = table.name.quotedDatabaseIdentifier
        let key = table.primaryKey.quotedDatabaseIdentifier
        let updated = table.updatedAt.quotedDatabaseIdentifier
        let deleted = table.deletedAt.quotedDatabaseIdentifier
        try db.execute(
            sql: """
                CREATE TRIGGER \(names[0].quotedDatabaseIdentifier) AFTER INSERT ON \(quoted)
                WHEN NOT EXISTS (SELECT 1 FROM _synchro_lock)
                BEGIN
                    \(record(table, id: "NEW.\(key)", operation: "'create'", base: "NULL"))
                END;
                CREATE TRIGGER \(names[1].quotedDatabaseIdentifier) AFTER UPDATE ON \(quoted)
                WHEN NOT EXISTS (SELECT 1 FROM _synchro_lock)
                BEGIN
                    \(record(table, id: "NEW.\(key)", operation: """
                        CASE WHEN OLD.\(deleted) IS NULL AND NEW.\(deleted) IS NOT NULL THEN 'delete'
                             WHEN OLD.\(deleted) IS NOT NULL AND NEW.\(deleted) IS NULL THEN 'create'
                             ELSE 'update' END
                        """, base: "OLD.\(updated)"))
                END;
                CREATE TRIGGER \(names[2].quotedDatabaseIdentifier) AFTER DELETE ON \(quoted)
                WHEN NOT EXISTS (SELECT 1 FROM _synchro_lock)
                BEGIN
                    \(record(table, id: "OLD.\(key)", operation: "'delete'", base: "OLD.\(updated)"))
                END;
                """
        )
    }

    /// Whether `table`'s insert trigger is this version's: a database written by an earlier
    /// one has triggers that write the pending queue directly, and gets these at open.
    static func areCurrent(for table: LocalTable, in db: Database) throws -> Bool {
        let sql = try String.fetchOne(
            db,
            sql: "SELECT sql FROM sqlite_master WHERE type = 'trigger' AND name = ?",
            arguments: [names(of: table.name)[0]]
        )
        return sql?.contains(ChangeLog.table) ?? false
    }

    /// The statement a trigger runs: one appended row, with the time of the write (the
    /// server's conflict rule compares it). The key is kept as written and the time as a number;
    /// the fold lower-cases the one and formats the other.
    private static func record(_ table: LocalTable, id: String, operation: String, base: String) -> String {
        """
        INSERT INTO _synchro_changes (table_name, record_id, operation, base_updated_at, written_at)
            VALUES (\(table.name.quotedLiteral), \(id), \(operation), \(base), julianday('now'));
        """
    }
}

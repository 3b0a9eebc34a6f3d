import GRDB

/// The triggers that turn the app's writes to a synced table into pending changes.
///
/// They stand down while `_synchro_lock` holds a row (server data being applied) and
/// coalesce into one pending row per record:
///
/// | pending   | new write | result                                               |
/// |-----------|-----------|------------------------------------------------------|
/// | —         | any       | the write's operation                                |
/// | create    | update    | create                                               |
/// | create    | delete    | nothing — unless the create is already in flight: delete |
/// | delete    | create    | update                                               |
/// | update    | create    | update                                               |
/// | otherwise |           | the newer operation, the earlier base                |
///
/// Every write bumps the row's `seq`, which is how a push tells an edit made while it was
/// in flight from the state it sent.
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
                    \(record(table, id: "NEW.\(key)", operation: "'create'", base: "NULL", canCancel: false))
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

    /// The statements a trigger runs: upsert the pending row, then — for writes that can
    /// cancel a create — remove it when a create and a delete cancelled out.
    private static func record(_ table: LocalTable, id: String, operation: String, base: String, canCancel: Bool = true) -> String {
        let name = table.name.quotedLiteral
        let cancel =
            canCancel
            ? "DELETE FROM _synchro_pending WHERE table_name = \(name) AND record_id = lower(\(id)) AND operation = '__drop';" : ""
        return """
            INSERT INTO _synchro_pending (table_name, record_id, operation, base_updated_at, client_updated_at)
                VALUES (\(name), lower(\(id)), \(operation), \(base), strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))
                ON CONFLICT (table_name, record_id) DO UPDATE SET
                    operation = CASE
                        WHEN operation = 'create' AND excluded.operation = 'delete'
                            THEN CASE WHEN inflight_seq IS NULL THEN '__drop' ELSE 'delete' END
                        WHEN operation = 'create' THEN 'create'
                        WHEN excluded.operation = 'create' THEN 'update'
                        ELSE excluded.operation END,
                    base_updated_at = CASE WHEN operation = 'create' THEN NULL
                        ELSE COALESCE(base_updated_at, excluded.base_updated_at) END,
                    client_updated_at = excluded.client_updated_at,
                    seq = (SELECT MAX(seq) + 1 FROM _synchro_pending);
            \(cancel)
            """
    }
}

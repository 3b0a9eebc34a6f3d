import GRDB

/// Local-only tables: the app's own tables in the same file, never synced (no change
/// triggers), kept across schema installs, observable with `onChange` and `watch` like any
/// other. A definition is checked before anything is written; a refused one throws
/// ``SynchroError/databaseError(underlying:)`` with a ``LocalTableError``.
extension SynchroClient {
    /// Creates a local-only table. Identifiers are quoted; one primary-key column is declared
    /// inline (an `INTEGER` one is the rowid), several make a composite key. Refuses a synced
    /// table's name: a local table must never stand in for a synced one.
    public func createTable(_ name: String, columns: [ColumnDef], options: TableOptions? = nil) throws {
        let options = options ?? TableOptions()
        try LocalTableDDL.checkName(name)
        guard !columns.isEmpty else { throw SynchroError.databaseError(underlying: LocalTableError.noColumns) }
        try LocalTableDDL.checkDistinct(columns.map(\.name))
        let keys = columns.filter(\.primaryKey)
        if options.withoutRowid, keys.isEmpty {
            throw SynchroError.databaseError(underlying: LocalTableError.withoutRowidNeedsPrimaryKey)
        }
        var parts = try columns.map { try LocalTableDDL.definition(of: $0, inlineKey: keys.count == 1) }
        if keys.count > 1 {
            parts.append("PRIMARY KEY (\(keys.map { LocalTableDDL.quote($0.name) }.joined(separator: ", ")))")
        }
        let sql =
            "CREATE TABLE \(options.ifNotExists ? "IF NOT EXISTS " : "")\(LocalTableDDL.quote(name)) (\(parts.joined(separator: ", ")))"
            + (options.withoutRowid ? " WITHOUT ROWID" : "")
        try databaseOperation {
            try database.write { db in
                try checkNotSynced(name, in: db)
                try db.execute(sql: sql)
            }
        }
    }

    /// Adds columns to a local-only table, all or none. A NOT NULL column without a default
    /// gets `DEFAULT ''`, as in the Synchro client (SQLite needs a default to add one).
    public func alterTable(_ name: String, addColumns: [ColumnDef]) throws {
        try LocalTableDDL.checkName(name)
        guard !addColumns.isEmpty else { throw SynchroError.databaseError(underlying: LocalTableError.noColumns) }
        if let key = addColumns.first(where: \.primaryKey) {
            throw SynchroError.databaseError(underlying: LocalTableError.primaryKeyNotAddable(key.name))
        }
        let statements = try addColumns.map { column in
            var added = column
            if !column.nullable, column.defaultValue == nil { added.defaultValue = "''" }
            let definition = try LocalTableDDL.definition(of: added, inlineKey: false)
            return "ALTER TABLE \(LocalTableDDL.quote(name)) ADD COLUMN \(definition)"
        }
        try databaseOperation {
            try database.write { db in
                try checkNotSynced(name, in: db)
                guard try db.tableExists(name) else { throw SynchroError.databaseError(underlying: LocalTableError.noSuchTable(name)) }
                try LocalTableDDL.checkDistinct(try LocalTableDDL.columns(of: name, in: db) + addColumns.map(\.name))
                for statement in statements { try db.execute(sql: statement) }
            }
        }
    }

    /// Creates the index `idx_<table>_<column>_<column>…` unless one of that name exists
    /// (`IF NOT EXISTS`: a second call with other `unique` changes nothing). Synced tables may
    /// be indexed too: an index is local and changes nothing that is synced.
    public func createIndex(_ table: String, columns: [String], unique: Bool = false) throws {
        try LocalTableDDL.checkName(table)
        guard !columns.isEmpty else { throw SynchroError.databaseError(underlying: LocalTableError.noColumns) }
        for column in columns where !LocalTable.isUsableName(column) {
            throw SynchroError.databaseError(underlying: LocalTableError.invalidName(column))
        }
        let index = "idx_\(table)_\(columns.joined(separator: "_"))"
        let sql =
            "CREATE \(unique ? "UNIQUE " : "")INDEX IF NOT EXISTS \(LocalTableDDL.quote(index)) ON \(LocalTableDDL.quote(table)) "
            + "(\(columns.map(LocalTableDDL.quote).joined(separator: ", ")))"
        try databaseOperation {
            try database.write { db in
                guard try db.tableExists(table) else { throw SynchroError.databaseError(underlying: LocalTableError.noSuchTable(table)) }
                try db.execute(sql: sql)
            }
        }
    }

    /// Refuses a table the server syncs: one of the installed schema, or one carrying the
    /// client's change triggers (a schema not loaded yet, or a seeded file).
    private func checkNotSynced(_ name: String, in db: Database) throws {
        let inSchema = engine.schema.current?.tables.contains { $0.name.lowercased() == name.lowercased() } ?? false
        let tracked =
            try Bool.fetchOne(
                db,
                sql: """
                    SELECT EXISTS (SELECT 1 FROM sqlite_master WHERE type = 'trigger' AND lower(tbl_name) = lower(?)
                    AND name LIKE '\\_synchro\\_%' ESCAPE '\\')
                    """,
                arguments: [name]
            ) ?? false
        if inSchema || tracked { throw SynchroError.databaseError(underlying: LocalTableError.syncedTable(name)) }
    }
}

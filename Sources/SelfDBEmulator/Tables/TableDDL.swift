import EmulatorSupport
import GRDB

/// Creates and reshapes the real SQLite tables behind user tables.
///
/// Renames and drops use SQLite's `ALTER TABLE`; everything SQLite cannot alter in place
/// (type, nullability and default changes, a NOT NULL column without default) rebuilds
/// the table: create the new shape, copy every row with its rowid (converting values as
/// a Postgres cast would), drop the old table, rename the new one, all in the caller's
/// transaction.
enum TableDDL {
    static func create(_ table: TableRecord, in db: Database) throws {
        let columns = table.columns.map(\.ddl).joined(separator: ", ")
        try db.execute(sql: "CREATE TABLE \(SQLIdentifier.quote(table.name)) (\(columns))")
    }

    static func drop(_ name: String, in db: Database) throws {
        try db.execute(sql: "DROP TABLE IF EXISTS \(SQLIdentifier.quote(name))")
    }

    static func rename(_ old: String, to new: String, in db: Database) throws {
        try db.execute(sql: "ALTER TABLE \(SQLIdentifier.quote(old)) RENAME TO \(SQLIdentifier.quote(new))")
    }

    static func renameColumn(_ old: String, to new: String, table: String, in db: Database) throws {
        try db.execute(
            sql: "ALTER TABLE \(SQLIdentifier.quote(table)) RENAME COLUMN \(SQLIdentifier.quote(old)) TO \(SQLIdentifier.quote(new))"
        )
    }

    static func addColumn(_ column: ColumnDefinition, table: String, in db: Database) throws {
        try db.execute(sql: "ALTER TABLE \(SQLIdentifier.quote(table)) ADD COLUMN \(column.ddl)")
    }

    static func dropColumn(_ name: String, table: String, in db: Database) throws {
        try db.execute(sql: "ALTER TABLE \(SQLIdentifier.quote(table)) DROP COLUMN \(SQLIdentifier.quote(name))")
    }

    /// Gives `table` the shape of `columns`. `sources` maps a new column name to the old
    /// column its values come from; new columns without a source start empty (their
    /// default, or NULL).
    static func rebuild(
        _ table: String,
        from oldColumns: [ColumnDefinition],
        to columns: [ColumnDefinition],
        sources: [String: String],
        in db: Database
    ) throws {
        let scratch = "_selfdb_rebuild"
        try db.execute(sql: "DROP TABLE IF EXISTS \(scratch)")
        try db.execute(sql: "CREATE TABLE \(scratch) (\(columns.map(\.ddl).joined(separator: ", ")))")
        let copied = columns.compactMap { column -> (new: ColumnDefinition, old: ColumnDefinition)? in
            guard let sourceName = sources[column.name], let old = oldColumns.first(where: { $0.name == sourceName })
            else { return nil }
            return (column, old)
        }
        let rows = try Row.fetchAll(db, sql: "SELECT rowid AS _selfdb_rowid, * FROM \(SQLIdentifier.quote(table))")
        let names = ["rowid"] + copied.map { SQLIdentifier.quote($0.new.name) }
        let placeholders = Array(repeating: "?", count: names.count).joined(separator: ", ")
        let insert = try db.makeStatement(
            sql: "INSERT INTO \(scratch) (\(names.joined(separator: ", "))) VALUES (\(placeholders))"
        )
        for row in rows {
            var values: [DatabaseValue] = [row["_selfdb_rowid"] as DatabaseValue]
            for pair in copied {
                let stored: DatabaseValue = row[pair.old.name]
                do {
                    values.append(try ValueCoding.convert(stored, from: pair.old, to: pair.new, table: table))
                } catch {
                    throw APIError.badRequest(error.message)
                }
            }
            do {
                try insert.execute(arguments: StatementArguments(values))
            } catch let error as DatabaseError where error.extendedResultCode == .SQLITE_CONSTRAINT_NOTNULL {
                let column = columns.first { !$0.nullable && $0.sqlDefault == nil && sources[$0.name] == nil }?.name ?? ""
                throw APIError.badRequest("column \"\(column)\" of relation \"\(table)\" contains null values")
            }
        }
        try db.execute(sql: "DROP TABLE \(SQLIdentifier.quote(table))")
        try db.execute(sql: "ALTER TABLE \(scratch) RENAME TO \(SQLIdentifier.quote(table))")
    }
}

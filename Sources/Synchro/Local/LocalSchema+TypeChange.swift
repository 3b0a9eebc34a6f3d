import Foundation
import GRDB

/// A synced column whose type the server changed.
///
/// SQLite converts a value to a column's declared type when it is written, so a column
/// left with its old type would keep turning the server's new values into the old kind (an
/// integer stored as text, which GRDB then does not read as a number). The official client
/// answers a type change by dropping the synced tables and clearing the pending queue: local
/// writes not yet pushed are lost without a word. Here the table is rebuilt with the new
/// types and every row, pending change and index is kept; each pending write then goes to
/// the server like any other, and one the server refuses is recorded in
/// `_synchro_rejected_mutations` with its reason.
extension LocalSchema {
    /// Whether a column `table` shares with the local table changed its type. A table that
    /// another table's foreign key refers to is not rebuilt (dropping it would run the
    /// references' `ON DELETE` actions); it keeps its old types, and the client says so in
    /// its log.
    func needsRebuild(_ table: LocalTable, existing: [ColumnInfo], in db: Database) throws -> Bool {
        let declared = Dictionary(existing.map { ($0.name.lowercased(), $0.type.uppercased()) }, uniquingKeysWith: { first, _ in first })
        let changed = table.columns.contains { column in
            declared[column.name.lowercased()].map { $0 != column.affinity } ?? false
        }
        guard changed else { return false }
        return try !isReferenced(table.name, in: db)
    }

    /// Recreates `table` with the server's column types, copying every row (SQLite converts
    /// each value to its column's new type where it can, and keeps it as it is where it
    /// cannot), and the indexes the app made on it. Columns the server no longer lists, or
    /// that the app added, keep their old declaration. The triggers are installed afterwards
    /// as for any table.
    func rebuild(_ table: LocalTable, existing: [ColumnInfo], in db: Database) throws {
        let indexes = try String.fetchAll(
            db,
            sql: "SELECT sql FROM sqlite_master WHERE type = 'index' AND tbl_name = ? AND sql IS NOT NULL",
            arguments: [table.name]
        )
        let serverNames = Set(table.columns.map { $0.name.lowercased() })
        var definitions = table.columns.map { definition(of: $0, in: table) }
        for column in existing where !serverNames.contains(column.name.lowercased()) {
            definitions.append([LocalTableDDL.quote(column.name), column.type].filter { !$0.isEmpty }.joined(separator: " "))
        }
        let temporary = "_synchro_rebuilding_\(table.name)".quotedDatabaseIdentifier
        let copied = existing.map { LocalTableDDL.quote($0.name) }.joined(separator: ", ")
        try db.execute(sql: "DROP TABLE IF EXISTS \(temporary)")
        try db.execute(
            sql: "CREATE TABLE \(temporary) (\(definitions.joined(separator: ", ")), PRIMARY KEY (\(table.primaryKey.quotedDatabaseIdentifier)))"
        )
        try db.execute(sql: "INSERT INTO \(temporary) (\(copied)) SELECT \(copied) FROM \(table.name.quotedDatabaseIdentifier)")
        try db.execute(sql: "DROP TABLE \(table.name.quotedDatabaseIdentifier)")
        try db.execute(sql: "ALTER TABLE \(temporary) RENAME TO \(table.name.quotedDatabaseIdentifier)")
        for index in indexes { try db.execute(sql: index) }
    }

    /// Whether another table's foreign key names `table`.
    private func isReferenced(_ table: String, in db: Database) throws -> Bool {
        try Bool.fetchOne(
            db,
            sql: """
                SELECT EXISTS (
                    SELECT 1 FROM sqlite_master AS m, pragma_foreign_key_list(m.name) AS f
                    WHERE m.type = 'table' AND m.name != ? AND f."table" = ? COLLATE NOCASE
                )
                """,
            arguments: [table, table]
        ) ?? false
    }
}

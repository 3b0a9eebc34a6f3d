import EmulatorSupport
import GRDB

/// A spec that changes a column's type, as an operator's `ALTER TABLE … ALTER COLUMN … TYPE`
/// followed by re-registering the table would on the real server.
///
/// SQLite converts a value to its column's declared type as it is written, so a column left
/// with its old type would keep storing the new kind of value as the old one (an integer as
/// text). The row table is rebuilt with the new types instead, each stored value converted
/// where SQLite can (`'12'` → 12) and kept as it is where it cannot: PostgreSQL would refuse
/// such a conversion unless told `USING`, and the emulator does not lose the value.
extension SynchroStore {
    /// Rebuilds the row table of `table` when a column's declared type differs from the
    /// spec's; returns whether it did (the new table has every spec column).
    static func retypeIfChanged(_ table: SyncTable, existing: [ColumnInfo], in db: Database) throws -> Bool {
        let declared = Dictionary(existing.map { ($0.name, $0.type.uppercased()) }, uniquingKeysWith: { first, _ in first })
        let changed = table.columns.contains { column in
            declared[column.name].map { $0 != column.logicalType.sqliteAffinity } ?? false
        }
        guard changed else { return false }
        let storage = SQLIdentifier.quote(table.storageName)
        let rebuilding = SQLIdentifier.quote("_rebuilding_" + table.storageName)
        let indexes = try String.fetchAll(
            db,
            sql: "SELECT sql FROM sqlite_master WHERE type = 'index' AND tbl_name = ? AND sql IS NOT NULL",
            arguments: [table.storageName]
        )
        let specNames = Set(table.columns.map(\.name))
        var definitions = ["_synchro_owner TEXT NOT NULL"]
        for column in table.columns {
            let key = column.isPrimaryKey ? " PRIMARY KEY NOT NULL" : ""
            definitions.append("\(SQLIdentifier.quote(column.name)) \(column.logicalType.sqliteAffinity)\(key)")
        }
        // Columns a spec dropped stay in the file, as they do without a type change.
        for column in existing where column.name != "_synchro_owner" && !specNames.contains(column.name) {
            definitions.append("\(SQLIdentifier.quote(column.name)) \(column.type)")
        }
        let copied = existing.map { SQLIdentifier.quote($0.name) }.joined(separator: ", ")
        try db.execute(sql: "DROP TABLE IF EXISTS \(rebuilding)")
        try db.execute(sql: "CREATE TABLE \(rebuilding) (\(definitions.joined(separator: ", ")))")
        try db.execute(sql: "INSERT INTO \(rebuilding) (\(copied)) SELECT \(copied) FROM \(storage)")
        try db.execute(sql: "DROP TABLE \(storage)")
        try db.execute(sql: "ALTER TABLE \(rebuilding) RENAME TO \(storage)")
        for index in indexes { try db.execute(sql: index) }
        return true
    }
}

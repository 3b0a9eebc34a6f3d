import EmulatorSupport

/// One column of a user table as the emulator keeps it (in `_selfdb_tables.columns`).
struct ColumnDefinition: Sendable, Codable, Equatable {
    var name: String
    /// The type exactly as the client wrote it; shown in `table_schema`.
    var type: String
    var kind: ColumnKind
    /// Maximum length for `varchar` columns.
    var length: Int?
    var nullable: Bool
    /// A vetted SQL literal applied as the column's DEFAULT (only for defaults set through
    /// the column endpoints: `table_schema` defaults are stored, not applied).
    var sqlDefault: String?

    /// The column's clause in `CREATE TABLE`. Only vetted parts reach the SQL text.
    var ddl: String {
        var clause = "\(SQLIdentifier.quote(name)) \(kind.storageType)"
        if !nullable { clause += " NOT NULL" }
        if let sqlDefault { clause += " DEFAULT \(sqlDefault)" }
        return clause
    }
}

import SelfDBSpec

/// A table as the spec language writes it, read from a server: what ``TableSpecRenderer``
/// writes under `tables:`.
public struct IntrospectedTable: Hashable, Sendable {
    /// The Swift row type (the key under `tables:`).
    public var modelName: String
    public var tableName: String
    public var description: String?
    public var isPublic: Bool
    public var realtime: Bool
    /// The column that identifies a row.
    public var primaryKey: String
    public var columns: [IntrospectedColumn]
    /// Comments written above the table's key (a primary key chosen, say).
    public var notes: [String]
}

/// One column as the spec language writes it.
public struct IntrospectedColumn: Hashable, Sendable {
    public var name: String
    public var type: ColumnType
    public var nullable: Bool
    public var defaultValue: LiteralValue?
    /// A `swift:` name, when the one the generator derives would clash with another column's.
    public var swiftName: String?
    public var description: String?
    /// A comment written above the column: what the server has that the spec language cannot
    /// say (a raw SQL type, a default it cannot hold).
    public var note: String?
}

import SelfDBSpec

/// A table as the spec language writes it, read from a server: what ``TableSpecRenderer``
/// writes under `tables:`.
public struct IntrospectedTable: Hashable, Sendable {
    /// The Swift row type (the key under `tables:`).
    public var modelName: String
    /// The SQL table name (`table:`).
    public var tableName: String
    /// Its documentation (`description:`).
    public var description: String?
    /// Whether anonymous users may read it (`public:`).
    public var isPublic: Bool
    /// Whether SelfDB broadcasts its changes (`realtime:`).
    public var realtime: Bool
    /// The column that identifies a row.
    public var primaryKey: String
    /// Its columns, in the order they are written.
    public var columns: [IntrospectedColumn]
    /// Comments written above the table's key (a primary key chosen, say).
    public var notes: [String]
}

/// One column as the spec language writes it.
public struct IntrospectedColumn: Hashable, Sendable {
    /// The SQL column name.
    public var name: String
    /// The spec type (the nearest, for a raw SQL type: see ``note``).
    public var type: ColumnType
    /// Whether it takes NULL (SelfDB's default).
    public var nullable: Bool
    /// The server's stored default, when the spec can hold it.
    public var defaultValue: LiteralValue?
    /// A `swift:` name, when the one the generator derives would clash with another column's.
    public var swiftName: String?
    /// The column's documentation (`description:`), kept from the spec.
    public var description: String?
    /// A comment written above the column: what the server has that the spec language cannot
    /// say (a raw SQL type, a default it cannot hold).
    public var note: String?
}

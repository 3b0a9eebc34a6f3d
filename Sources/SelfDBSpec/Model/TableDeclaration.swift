/// A column type SelfDB's `table_schema` accepts, with the Swift type a row uses for it.
public enum ColumnType: String, CaseIterable, Hashable, Sendable {
    case text, varchar, string
    case integer, int, bigint
    case decimal, float
    case boolean, bool
    case date, timestamp, datetime
    case json, jsonb
    case uuid

    /// The spec type a row property of this column has.
    public var swiftType: BuiltinType {
        switch self {
        case .text, .varchar, .string: .string
        case .integer, .int: .int
        case .bigint: .int64
        case .decimal, .float: .double
        case .boolean, .bool: .bool
        case .date, .timestamp, .datetime: .date
        case .json, .jsonb: .json
        case .uuid: .uuid
        }
    }
}

/// An app table model under `tables:`.
public struct TableDeclaration: Hashable, Sendable {
    /// The Swift row type name (the key under `tables:`).
    public var name: Located<String>
    /// The SelfDB table name.
    public var tableName: Located<String>
    /// Documentation.
    public var description: String?
    /// The primary key column's key, when declared.
    public var primaryKey: Located<String>?
    /// Whether SelfDB should broadcast changes (`realtime_enabled`).
    public var realtime: Bool
    /// Whether anonymous users may read the table.
    public var isPublic: Bool
    /// Columns in declaration order.
    public var columns: [ColumnDeclaration]
    /// How the table syncs with Synchro; `nil` when it does not (no `sync:`).
    public var sync: SyncDeclaration?

    /// Creates a table.
    public init(
        name: Located<String>,
        tableName: Located<String>,
        description: String?,
        primaryKey: Located<String>?,
        realtime: Bool,
        isPublic: Bool,
        columns: [ColumnDeclaration],
        sync: SyncDeclaration? = nil
    ) {
        self.name = name
        self.tableName = tableName
        self.description = description
        self.primaryKey = primaryKey
        self.realtime = realtime
        self.isPublic = isPublic
        self.columns = columns
        self.sync = sync
    }
}

/// One column of a table model.
public struct ColumnDeclaration: Hashable, Sendable {
    /// The SQL column name (the key).
    public var name: Located<String>
    /// The SelfDB type; `nil` when the spec named an unknown one (already diagnosed).
    public var type: Located<ColumnType>?
    /// The Swift property name.
    public var swiftName: Located<String>
    /// Whether the column may hold NULL (SelfDB's default is `true`).
    public var nullable: Bool
    /// Where `nullable:` was written, when it was.
    public var nullableLocation: SourceLocation?
    /// The default value stored with the schema.
    public var defaultValue: Located<LiteralValue>?
    /// Documentation.
    public var description: String?

    /// Creates a column.
    public init(
        name: Located<String>,
        type: Located<ColumnType>?,
        swiftName: Located<String>,
        nullable: Bool,
        nullableLocation: SourceLocation?,
        defaultValue: Located<LiteralValue>?,
        description: String?
    ) {
        self.name = name
        self.type = type
        self.swiftName = swiftName
        self.nullable = nullable
        self.nullableLocation = nullableLocation
        self.defaultValue = defaultValue
        self.description = description
    }
}

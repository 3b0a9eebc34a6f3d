import Foundation

/// A row type generated from a spec's `tables:` section.
///
/// The generated type carries its schema, so the same declaration can create the table on
/// the server, decode its rows, and drive typed queries against the server or the cache.
public protocol TableModel: CacheableModel {
    /// The column set: one case per column, raw value = SQL column name.
    associatedtype Column: TableModelColumn
    /// The Swift type of the primary key column.
    associatedtype PrimaryKey: Hashable, Sendable
    /// The SelfDB table name.
    static var tableName: String { get }
    /// The primary key column.
    static var primaryKey: Column { get }
    /// This row's value in the primary key column.
    var primaryKeyValue: PrimaryKey { get }
    /// Column definitions in declaration order.
    static var columns: [TableColumnDefinition<Column>] { get }
    /// Whether the table broadcasts realtime changes.
    static var isRealtimeEnabled: Bool { get }
    /// Whether anonymous users may read it.
    static var isPublic: Bool { get }
    /// The column a stored property's key path stands for; `nil` for computed properties.
    static func column(for keyPath: PartialKeyPath<Self>) -> Column?
}

extension TableModel {
    /// A query on this table, to refine with `search`, `sort`, `where`, `page`...
    public static func query() -> TableQuery<Self> { TableQuery() }

    /// The table name: a table's rows are one namespace in a cache.
    public static var cacheTypeName: String { tableName }

    /// The text form of the primary key (see `CacheKey.text(of:)`).
    public var cacheKey: String { CacheKey.text(of: primaryKeyValue) }
}

/// The column set of a table model: the generated `Column` enum of each table.
///
/// Not `TableColumn`, so that a file importing SelfDB and SwiftUI gets SwiftUI's `TableColumn`.
public protocol TableModelColumn: RawRepresentable<String>, CaseIterable, Hashable, Sendable, CodingKey {}

/// SelfDB column types (the contract's `table_schema` types).
public enum ColumnType: String, Sendable, Hashable, Codable, CaseIterable {
    /// Unbounded text.
    case text
    /// Text (SQL `varchar`).
    case varchar
    /// Text (an alias the server accepts).
    case string
    /// An integer.
    case integer
    /// An integer (an alias of `integer`).
    case int
    /// A 64-bit integer.
    case bigint
    /// An exact decimal number.
    case decimal
    /// A floating-point number.
    case float
    /// `true` or `false`.
    case boolean
    /// `true` or `false` (an alias of `boolean`).
    case bool
    /// A calendar date.
    case date
    /// A date and time.
    case timestamp
    /// A date and time (an alias of `timestamp`).
    case datetime
    /// A JSON value.
    case json
    /// A JSON value, stored binary.
    case jsonb
    /// A UUID.
    case uuid
}

/// One column of a table model's schema.
public struct TableColumnDefinition<Column: TableModelColumn>: Sendable, Hashable {
    /// The column.
    public var column: Column
    /// Its SelfDB type.
    public var type: ColumnType
    /// Whether it may be NULL.
    public var isNullable: Bool
    /// Its stored default, if any.
    public var defaultValue: JSONValue?

    /// The SQL name.
    public var name: String { column.rawValue }

    /// Creates a definition.
    public init(_ column: Column, _ type: ColumnType, nullable: Bool, default defaultValue: JSONValue? = nil) {
        self.column = column
        self.type = type
        self.isNullable = nullable
        self.defaultValue = defaultValue
    }
}

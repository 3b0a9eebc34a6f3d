/// A column of a local-only table (``SynchroClient/createTable(_:columns:options:)``,
/// ``SynchroClient/alterTable(_:addColumns:)``).
public struct ColumnDef: Sendable, Equatable {
    /// The column name; any text (it is quoted), not empty.
    public var name: String
    /// The declared SQLite type: words and an optional size, as `TEXT`, `INTEGER`,
    /// `VARCHAR(255)` or `DECIMAL(10, 2)`. Constraints do not belong here.
    public var type: String
    /// Whether the column accepts NULL.
    public var nullable: Bool
    /// The default as SQL: a literal (`0`, `'open'`, `NULL`, `TRUE`, `X'00ff'`),
    /// `CURRENT_TIMESTAMP` (`_DATE`, `_TIME`), or an expression in parentheses.
    public var defaultValue: String?
    /// Whether the column is (part of) the primary key.
    public var primaryKey: Bool

    /// Creates a column definition.
    public init(name: String, type: String, nullable: Bool = true, defaultValue: String? = nil, primaryKey: Bool = false) {
        self.name = name
        self.type = type
        self.nullable = nullable
        self.defaultValue = defaultValue
        self.primaryKey = primaryKey
    }
}

/// How ``SynchroClient/createTable(_:columns:options:)`` creates a table.
public struct TableOptions: Sendable, Equatable {
    /// Leave an existing table of that name as it is (`CREATE TABLE IF NOT EXISTS`).
    public var ifNotExists: Bool
    /// `WITHOUT ROWID` (needs a primary key).
    public var withoutRowid: Bool

    /// Creates options; the defaults are those of the Synchro client.
    public init(ifNotExists: Bool = true, withoutRowid: Bool = false) {
        self.ifNotExists = ifNotExists
        self.withoutRowid = withoutRowid
    }
}

/// Why a local-only table definition was refused. Thrown as
/// ``SynchroError/databaseError(underlying:)`` before anything is written.
public enum LocalTableError: Error, Sendable, Equatable {
    /// An empty name, or one with a NUL character.
    case invalidName(String)
    /// A name starting with `_synchro` (the client's own tables) or `sqlite_` (SQLite's).
    case reservedName(String)
    /// The table is synced: a local definition would shadow or alter the server's.
    case syncedTable(String)
    /// No such table (altered or indexed).
    case noSuchTable(String)
    /// A table without columns, an alter without columns, or an index without columns.
    case noColumns
    /// Two columns of one name.
    case duplicateColumn(String)
    /// A type string that is not a SQLite type name.
    case invalidType(column: String, type: String)
    /// A default that is not a literal, `CURRENT_*`, or an expression in parentheses.
    case invalidDefault(column: String, value: String)
    /// `withoutRowid` without a primary key column.
    case withoutRowidNeedsPrimaryKey
    /// `alterTable` cannot add a primary-key column (SQLite cannot).
    case primaryKeyNotAddable(String)
}

import EmulatorSupport
import SelfDBSpec

/// One column of a synced table, as the schema endpoint describes it.
struct SyncColumn: Sendable {
    /// Where a default can be evaluated (`default_kind`).
    enum DefaultKind: String, Sendable {
        case none, portable
        /// Only the server can produce it (the `updatedAt` column's `now()`).
        case serverOnly = "server_only"
    }

    let name: String
    /// The spec's column type, lower-cased (`db_type`).
    let databaseType: String
    let logicalType: SyncLogicalType
    let nullable: Bool
    let isPrimaryKey: Bool
    /// The spec's literal default, applied to creates that leave the column out.
    let defaultValue: JSONValue?
    let defaultKind: DefaultKind
    let defaultSQL: String?
    let sqliteDefaultSQL: String?

    init(_ column: ColumnDeclaration, type: ColumnType, isPrimaryKey: Bool, isUpdatedAt: Bool) {
        name = column.name.value
        databaseType = type.rawValue
        logicalType = SyncLogicalType(type)
        // The key is never NULL, whatever `nullable` says.
        nullable = column.nullable && !isPrimaryKey
        self.isPrimaryKey = isPrimaryKey
        if let literal = column.defaultValue?.value {
            let sql = Self.sql(for: literal)
            defaultValue = Self.json(for: literal)
            defaultKind = .portable
            defaultSQL = sql.server
            sqliteDefaultSQL = sql.sqlite
        } else if isUpdatedAt {
            defaultValue = nil
            defaultKind = .serverOnly
            defaultSQL = "now()"
            sqliteDefaultSQL = nil
        } else {
            defaultValue = nil
            defaultKind = .none
            defaultSQL = nil
            sqliteDefaultSQL = nil
        }
    }

    /// The column as `/sync/schema` lists it; absent optionals are left out.
    var json: JSONValue {
        var object = JSONObject()
        object["name"] = .string(name)
        object["db_type"] = .string(databaseType)
        object["logical_type"] = .string(logicalType.rawValue)
        object["nullable"] = .bool(nullable)
        object["default_sql"] = defaultSQL.map(JSONValue.string)
        object["default_kind"] = .string(defaultKind.rawValue)
        object["sqlite_default_sql"] = sqliteDefaultSQL.map(JSONValue.string)
        object["is_primary_key"] = .bool(isPrimaryKey)
        return .object(object)
    }

    private static func sql(for literal: LiteralValue) -> (server: String, sqlite: String) {
        switch literal {
        case .null: ("NULL", "NULL")
        case .bool(let flag): (flag ? "true" : "false", flag ? "1" : "0")
        case .int(let number): (String(number), String(number))
        case .double(let number): (String(number), String(number))
        case .string(let text):
            ("'" + text.replacingOccurrences(of: "'", with: "''") + "'", "'" + text.replacingOccurrences(of: "'", with: "''") + "'")
        }
    }

    private static func json(for literal: LiteralValue) -> JSONValue {
        switch literal {
        case .null: .null
        case .bool(let flag): .bool(flag)
        case .int(let number): .int(number)
        case .double(let number): .double(number)
        case .string(let text): .string(text)
        }
    }
}

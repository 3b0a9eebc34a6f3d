import Crypto
import EmulatorSupport

/// The protocol-2 schema manifest (`GET /sync/schema`, connect's `schema_definition`) and its
/// hash, as the real server builds them (`synchro-pg/src/schema.rs`): tables by name, columns in
/// table order, the hash the md5 hex of the compact `{"tables":[…]}` with table fields in the
/// order `name, primary_key, updated_at_column, deleted_at_column, columns, indexes` and column
/// fields `name, type, nullable`. Two emulators with the same specs agree on the hash, and a
/// spec change that reaches clients changes it.
struct SchemaManifest: Sendable {
    /// `{"tables":[…]}`.
    let json: JSONValue
    /// md5 hex, 32 lower-case characters; "" when no table is synced (the real server's (0, "")).
    let hash: String

    init(_ schema: SyncSchema) {
        let tables = schema.tables.sorted { Array($0.name.utf8).lexicographicallyPrecedes(Array($1.name.utf8)) }
        var root = JSONObject()
        root["tables"] = .array(tables.map(Self.table))
        json = .object(root)
        hash = tables.isEmpty ? "" : CanonicalJSON.hex(Insecure.MD5.hash(data: JSONWriter.bytes(json)))
    }

    private static func table(_ table: SyncTable) -> JSONValue {
        var object = JSONObject()
        object["name"] = .string(table.name)
        object["primary_key"] = .array([.string(table.primaryKey)])
        object["updated_at_column"] = .string(table.updatedAtColumn)
        object["deleted_at_column"] = .string(table.deletedAtColumn)
        // Only the synced columns: an excluded one is the server's alone.
        object["columns"] = .array(
            table.syncedColumns.map { column in
                var entry = JSONObject()
                entry["name"] = .string(column.name)
                entry["type"] = .string(portableType(column.logicalType))
                entry["nullable"] = .bool(column.nullable)
                return .object(entry)
            }
        )
        // Our specs declare no secondary indexes; the field is always present.
        object["indexes"] = .array([])
        return .object(object)
    }

    /// The canonical column type (§3.5): `string`, `int`, `int64`, `float`, `boolean`,
    /// `datetime`, `date`, `time`, `json` or `bytes`.
    static func portableType(_ type: SyncLogicalType) -> String {
        switch type {
        case .boolean: "boolean"
        case .int: "int"
        case .int64: "int64"
        case .float: "float"
        case .string: "string"
        case .json: "json"
        case .date: "date"
        case .datetime: "datetime"
        }
    }
}

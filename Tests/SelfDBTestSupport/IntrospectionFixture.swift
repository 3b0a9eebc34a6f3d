import Foundation
import SelfDBRuntime

/// Tables a SelfDB server serves, for the introspection round trip: made through the API,
/// introspected into `Tests/SelfDBClientTests/introspected.yaml` (SelfDBIntrospectionTests
/// checks that it still is what introspection writes), whose generated types then read and
/// write their rows (SelfDBClientTests). Every column type SelfDB names, and a raw SQL one.
public enum IntrospectionFixture {
    public struct Column: Sendable {
        public let name: String
        public let type: String
        public let nullable: Bool
        public let defaultValue: JSONValue?
    }

    public struct Table: Sendable {
        public let name: String
        public let isPublic: Bool
        public let description: String?
        public let columns: [Column]
    }

    public static let tables: [Table] = [
        Table(
            name: "every_types",
            isPublic: false,
            description: "Every column type SelfDB names",
            columns: [
                Column(name: "id", type: "uuid", nullable: false, defaultValue: nil),
                Column(name: "c_text", type: "text", nullable: false, defaultValue: nil),
                Column(name: "c_varchar", type: "varchar", nullable: true, defaultValue: nil),
                Column(name: "c_string", type: "string", nullable: true, defaultValue: nil),
                Column(name: "c_integer", type: "integer", nullable: true, defaultValue: .integer(7)),
                Column(name: "c_int", type: "int", nullable: true, defaultValue: nil),
                Column(name: "c_bigint", type: "bigint", nullable: true, defaultValue: nil),
                Column(name: "c_decimal", type: "decimal", nullable: true, defaultValue: nil),
                Column(name: "c_float", type: "float", nullable: true, defaultValue: nil),
                Column(name: "c_boolean", type: "boolean", nullable: false, defaultValue: .bool(false)),
                Column(name: "c_bool", type: "bool", nullable: true, defaultValue: nil),
                Column(name: "c_date", type: "date", nullable: true, defaultValue: nil),
                Column(name: "c_timestamp", type: "timestamp", nullable: true, defaultValue: nil),
                Column(name: "c_datetime", type: "datetime", nullable: true, defaultValue: nil),
                Column(name: "c_json", type: "json", nullable: true, defaultValue: nil),
                Column(name: "c_jsonb", type: "jsonb", nullable: true, defaultValue: nil),
                Column(name: "c_uuid", type: "uuid", nullable: true, defaultValue: nil),
                Column(name: "stamp", type: "TIMESTAMPTZ", nullable: true, defaultValue: .string("now()")),
                Column(name: "user_id", type: "uuid", nullable: true, defaultValue: nil),
            ]
        ),
        Table(
            name: "todo_items",
            isPublic: true,
            description: nil,
            columns: [
                Column(name: "id", type: "uuid", nullable: false, defaultValue: nil),
                Column(name: "title", type: "text", nullable: false, defaultValue: nil),
                Column(name: "done", type: "boolean", nullable: true, defaultValue: .bool(false)),
            ]
        ),
    ]

    /// The `POST /tables/` body of `table`.
    public static func createBody(_ table: Table) -> JSONValue {
        var schema: [String: JSONValue] = [:]
        for column in table.columns {
            var entry: [String: JSONValue] = ["type": .string(column.type), "nullable": .bool(column.nullable)]
            if let value = column.defaultValue { entry["default"] = value }
            schema[column.name] = .object(entry)
        }
        var body: [String: JSONValue] = ["name": .string(table.name), "public": .bool(table.isPublic), "table_schema": .object(schema)]
        if let description = table.description { body["description"] = .string(description) }
        return .object(body)
    }

    /// The committed spec introspection wrote from these tables (server URL `http://localhost:8000`).
    public static let specURL = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("SelfDBClientTests/introspected.yaml")
}

import EmulatorSupport
import Foundation
import GRDB

/// A row of `_selfdb_tables`: a user table's metadata.
struct TableRecord: Sendable {
    var id: String
    var name: String
    /// `table_schema` as the client sees it.
    var schema: JSONObject
    /// The authoritative column list, in table order.
    var columns: [ColumnDefinition]
    var isPublic: Bool
    var description: String?
    var metadata: JSONValue
    var ownerID: String
    var realtimeEnabled: Bool
    var createdAt: String
    var updatedAt: String

    init(
        id: String,
        name: String,
        schema: JSONObject,
        columns: [ColumnDefinition],
        isPublic: Bool,
        description: String?,
        metadata: JSONValue,
        ownerID: String,
        realtimeEnabled: Bool,
        createdAt: String,
        updatedAt: String
    ) {
        self.id = id
        self.name = name
        self.schema = schema
        self.columns = columns
        self.isPublic = isPublic
        self.description = description
        self.metadata = metadata
        self.ownerID = ownerID
        self.realtimeEnabled = realtimeEnabled
        self.createdAt = createdAt
        self.updatedAt = updatedAt
    }

    init(row: Row) throws {
        id = row["id"]
        name = row["name"]
        schema = (try? JSONParser.parse(row["table_schema"] as String))?.objectValue ?? JSONObject()
        columns = try JSONDecoder().decode([ColumnDefinition].self, from: Data((row["columns"] as String).utf8))
        isPublic = row["public"]
        description = row["description"]
        metadata = (try? JSONParser.parse(row["metadata"] as String)) ?? .object(JSONObject())
        ownerID = row["owner_id"]
        realtimeEnabled = row["realtime_enabled"]
        createdAt = row["created_at"]
        updatedAt = row["updated_at"]
    }

    func column(named name: String) -> ColumnDefinition? {
        columns.first { $0.name == name }
    }

    func json(rowCount: Int64) -> JSONValue {
        .object(
            JSONObject([
                ("id", .string(id)),
                ("name", .string(name)),
                ("table_schema", .object(schema)),
                ("public", .bool(isPublic)),
                ("description", .optional(description)),
                ("metadata", metadata),
                ("owner_id", .string(ownerID)),
                ("row_count", .int(rowCount)),
                ("realtime_enabled", .bool(realtimeEnabled)),
                ("created_at", .string(createdAt)),
                ("updated_at", .string(updatedAt)),
            ])
        )
    }

    /// The record with its live row count, as the REST API shows it.
    func json(in db: Database) throws -> JSONValue {
        json(rowCount: try rowCount(db))
    }

    /// The record as the `tables` realtime channel shows it.
    func realtimeJSON(in db: Database) throws -> JSONValue {
        guard case .object(var object) = try json(in: db) else { return .null }
        object["created_at"] = .string(Timestamp.realtime(createdAt))
        object["updated_at"] = .string(Timestamp.realtime(updatedAt))
        return .object(object)
    }

    func rowCount(_ db: Database) throws -> Int64 {
        try Int64.fetchOne(db, sql: "SELECT COUNT(*) FROM \(SQLIdentifier.quote(name))") ?? 0
    }

    static func find(id: String, in db: Database) throws -> TableRecord? {
        try Row.fetchOne(db, sql: "SELECT * FROM _selfdb_tables WHERE id = ?", arguments: [id]).map(TableRecord.init)
    }

    static func find(name: String, in db: Database) throws -> TableRecord? {
        try Row.fetchOne(db, sql: "SELECT * FROM _selfdb_tables WHERE name = ?", arguments: [name]).map(TableRecord.init)
    }

    private var columnsText: String {
        get throws { String(decoding: try JSONEncoder().encode(columns), as: UTF8.self) }
    }

    func insert(_ db: Database) throws {
        try db.execute(
            sql: """
                INSERT INTO _selfdb_tables (id, name, table_schema, columns, public, description, metadata, owner_id,
                realtime_enabled, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                """,
            arguments: [
                id, name, JSONWriter.string(.object(schema)), try columnsText, isPublic, description,
                JSONWriter.string(metadata), ownerID, realtimeEnabled, createdAt, updatedAt,
            ]
        )
    }

    func update(_ db: Database) throws {
        try db.execute(
            sql: """
                UPDATE _selfdb_tables SET name = ?, table_schema = ?, columns = ?, public = ?, description = ?,
                metadata = ?, realtime_enabled = ?, updated_at = ? WHERE id = ?
                """,
            arguments: [
                name, JSONWriter.string(.object(schema)), try columnsText, isPublic, description,
                JSONWriter.string(metadata), realtimeEnabled, updatedAt, id,
            ]
        )
    }
}

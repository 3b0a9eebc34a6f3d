import EmulatorSupport
import GRDB

/// A row of `_selfdb_functions`, answered as SelfDB's `FunctionRead`.
struct FunctionRecord: Sendable {
    let id: String
    let name: String
    let ownerID: String
    let executionCount: Int64
    let averageMilliseconds: Int64?
    /// `FunctionRead`, fields in pydantic's order (the base model's first).
    let json: JSONValue

    init(row: Row) {
        id = row["id"]
        name = row["name"]
        ownerID = row["owner_id"]
        executionCount = row["execution_count"]
        averageMilliseconds = row["avg_execution_time_ms"]
        json = .object(
            JSONObject([
                ("name", .string(row["name"])),
                ("description", .optional(row["description"])),
                ("timeout_seconds", .int(row["timeout_seconds"])),
                ("id", .string(row["id"])),
                ("code", .string(row["code"])),
                ("owner_id", .string(row["owner_id"])),
                ("is_active", .bool(row["is_active"])),
                ("deployment_status", .string(row["deployment_status"])),
                ("deployment_error", .optional(row["deployment_error"])),
                ("version", .int(row["version"])),
                ("env_vars", StoredJSON.decode(row["env_vars"]) ?? .object(JSONObject())),
                ("execution_count", .int(row["execution_count"])),
                ("execution_success_count", .int(row["execution_success_count"])),
                ("execution_error_count", .int(row["execution_error_count"])),
                ("last_executed_at", .optional(row["last_executed_at"])),
                ("avg_execution_time_ms", (row["avg_execution_time_ms"] as Int64?).map(JSONValue.int) ?? .null),
                ("last_deployed_at", .optional(row["last_deployed_at"])),
                ("created_at", .string(row["created_at"])),
                ("updated_at", .string(row["updated_at"])),
            ])
        )
    }

    static func find(id: String, in db: Database) throws -> FunctionRecord? {
        try Row.fetchOne(db, sql: "SELECT * FROM _selfdb_functions WHERE id = ?", arguments: [id]).map(FunctionRecord.init)
    }

    static func find(name: String, in db: Database) throws -> FunctionRecord? {
        try Row.fetchOne(db, sql: "SELECT * FROM _selfdb_functions WHERE name = ?", arguments: [name]).map(FunctionRecord.init)
    }

    /// SelfDB's `get_function_from_db` dependency: 404 before anyone's role is looked at.
    static func load(_ id: String, in db: Database) throws -> FunctionRecord {
        guard let function = try find(id: id, in: db) else { throw APIError.notFound("Function not found") }
        return function
    }

    /// The 409 SelfDB answers when a name is taken (its `UNIQUE` constraint).
    static func nameTaken(_ name: String) -> APIError {
        APIError.conflict("Function with name '\(name)' already exists")
    }
}

import EmulatorSupport
import Foundation
import GRDB
import Hummingbird

/// `/sql/...`: the admin's SQL console, history and snippets.
enum SQLRoutes {
    static func register(in table: inout RouteTable) {
        table.add(.post, "/sql/query", query)
        table.add(.get, "/sql/history", history)
        table.add(.delete, "/sql/history", clearHistory)
        table.add(.get, "/sql/snippets", snippets)
        table.add(.post, "/sql/snippets", createSnippet)
        table.add(.delete, "/sql/snippets/{snippet_id}", deleteSnippet)
    }

    /// Runs the query and records it in the admin's history. A query that fails is 400 with
    /// the database's words and, as on SelfDB (whose history insert lands in the aborted
    /// transaction), leaves no history entry.
    static func query(_ request: APIRequest, _ services: EmulatorServices) async throws -> Response {
        let payload = try request.json()
        let admin = try await AdminOnly.sql.require(request, services)
        var body = BodyReader(payload)
        let text = body.string("query", required: true, nullable: false, minLength: 1, maxLength: 100_000)
        try body.validate()
        guard let text else { throw APIError.validation(body.issues) }

        let query = text.trimmingCharacters(in: .whitespacesAndNewlines)
        try SQLQueryGuard.check(query)
        let readOnly = SQLQueryGuard.isReadOnly(query)
        do {
            let json = try await services.database.pool.write { db in
                let outcome = try SQLQueryRunner.run(query, readOnly: readOnly, in: db)
                try db.execute(
                    sql: """
                        INSERT INTO _selfdb_sql_history (id, query, is_read_only, execution_time, row_count, user_id, executed_at)
                        VALUES (?, ?, ?, ?, ?, ?, ?)
                        """,
                    arguments: [UUIDText.random(), query, readOnly, outcome.seconds, outcome.rowCount, admin.id, Timestamp.now()]
                )
                return outcome.json
            }
            return .json(json)
        } catch let error as DatabaseError {
            throw APIError.badRequest(error.message ?? "\(error)")
        }
    }

    static func history(_ request: APIRequest, _ services: EmulatorServices) async throws -> Response {
        let admin = try await AdminOnly.sql.require(request, services)
        var query = request.query
        let limit = query.int("limit", default: 100, minimum: 1, maximum: 500)
        try query.validate()
        let items = try await services.database.pool.read { db in
            try Row.fetchAll(
                db,
                sql: "SELECT * FROM _selfdb_sql_history WHERE user_id = ? ORDER BY executed_at DESC, rowid DESC LIMIT ?",
                arguments: [admin.id, limit]
            ).map { row -> JSONValue in
                .object(
                    JSONObject([
                        ("id", .string(row["id"])),
                        ("query", .string(row["query"])),
                        ("is_read_only", .bool(row["is_read_only"])),
                        ("execution_time", .double(row["execution_time"])),
                        ("row_count", (row["row_count"] as Int64?).map(JSONValue.int) ?? .null),
                        ("error", .optional(row["error"])),
                        ("executed_at", .string(row["executed_at"])),
                    ])
                )
            }
        }
        return .json(.object(JSONObject([("history", .array(items))])))
    }

    static func clearHistory(_ request: APIRequest, _ services: EmulatorServices) async throws -> Response {
        let admin = try await AdminOnly.sql.require(request, services)
        try await services.database.pool.write { db in
            try db.execute(sql: "DELETE FROM _selfdb_sql_history WHERE user_id = ?", arguments: [admin.id])
        }
        return .empty(.noContent)
    }

    /// The admin's own snippets and every shared one, newest first.
    static func snippets(_ request: APIRequest, _ services: EmulatorServices) async throws -> Response {
        let admin = try await AdminOnly.sql.require(request, services)
        let items = try await services.database.pool.read { db in
            try Row.fetchAll(
                db,
                sql: "SELECT * FROM _selfdb_sql_snippets WHERE created_by = ? OR is_shared = 1 ORDER BY created_at DESC, rowid DESC",
                arguments: [admin.id]
            ).map(snippetJSON)
        }
        return .json(.object(JSONObject([("snippets", .array(items))])))
    }

    static func createSnippet(_ request: APIRequest, _ services: EmulatorServices) async throws -> Response {
        let payload = try request.json()
        let admin = try await AdminOnly.sql.require(request, services)
        var body = BodyReader(payload)
        let name = body.string("name", required: true, nullable: false, minLength: 1, maxLength: 100)
        let code = body.string("sql_code", required: true, nullable: false, minLength: 1, maxLength: 100_000)
        let description = body.string("description", maxLength: 500)
        let shared = body.laxBool("is_shared", nullable: false) ?? false
        try body.validate()
        guard let name, let code else { throw APIError.validation(body.issues) }
        let id = UUIDText.random()
        let json = try await services.database.pool.write { db in
            try db.execute(
                sql: "INSERT INTO _selfdb_sql_snippets (id, name, sql_code, description, is_shared, created_by, created_at) VALUES (?, ?, ?, ?, ?, ?, ?)",
                arguments: [id, name, code, description, shared, admin.id, Timestamp.now()]
            )
            guard let row = try Row.fetchOne(db, sql: "SELECT * FROM _selfdb_sql_snippets WHERE id = ?", arguments: [id]) else {
                throw APIError.notFound("Snippet not found")
            }
            return snippetJSON(row)
        }
        return .json(json, status: .created)
    }

    /// Any admin may delete any snippet, shared or not, as on SelfDB.
    static func deleteSnippet(_ request: APIRequest, _ services: EmulatorServices) async throws -> Response {
        _ = try await AdminOnly.sql.require(request, services)
        let id = try request.requireUUIDParameter("snippet_id")
        try await services.database.pool.write { db in
            try db.execute(sql: "DELETE FROM _selfdb_sql_snippets WHERE id = ?", arguments: [id])
            guard db.changesCount > 0 else { throw APIError.notFound("Snippet not found") }
        }
        return .empty(.noContent)
    }

    private static func snippetJSON(_ row: Row) -> JSONValue {
        .object(
            JSONObject([
                ("id", .string(row["id"])),
                ("name", .string(row["name"])),
                ("sql_code", .string(row["sql_code"])),
                ("description", .optional(row["description"])),
                ("is_shared", .bool(row["is_shared"])),
                ("created_by", .string(row["created_by"])),
                ("created_at", .string(row["created_at"])),
            ])
        )
    }
}

import EmulatorSupport
import GRDB
import Hummingbird

/// `/functions/...`: SelfDB's serverless functions, admins only (the runtime's callback
/// excepted, ``FunctionRoutes/reportExecution(_:_:)``).
///
/// The checks run in the order SelfDB's FastAPI dependencies run: unknown query parameters
/// (400), then the function's existence (404, before anyone's role is looked at), then the
/// admin check (401/403), then the endpoint's own parameters and body (422).
enum FunctionRoutes {
    static func register(in table: inout RouteTable) {
        table.add(.get, "/functions/count", count)
        table.add(.get, "/functions/", list)
        table.add(.post, "/functions/", create)
        table.add(.get, "/functions/{function_id:uuid}", read)
        table.add(.patch, "/functions/{function_id:uuid}", update)
        table.add(.delete, "/functions/{function_id:uuid}", delete)
        table.add(.post, "/functions/{function_id:uuid}/deploy", deploy)
        table.add(.put, "/functions/{function_id:uuid}/env", setEnvironment)
        table.add(.post, "/functions/{function_name}/execution-result", reportExecution)
        table.add(.get, "/functions/{function_id:uuid}/executions", executions)
        table.add(.get, "/functions/{function_id:uuid}/logs", logs)
    }

    static let namePattern = "^[a-zA-Z][a-zA-Z0-9_-]*$"
    static let blankCode = "Function code cannot be empty or whitespace only"
    static let sortable = ["created_at", "updated_at", "name", "last_executed_at", "execution_count"]

    static func isValidName(_ name: String) -> Bool {
        guard let first = name.unicodeScalars.first, first.isASCIILetter else { return false }
        return name.unicodeScalars.allSatisfy { $0.isASCIILetter || ("0"..."9").contains($0) || $0 == "_" || $0 == "-" }
    }

    /// `WHERE` over name and description for `search`, which SelfDB puts into `ILIKE '%…%'` as
    /// sent: untrimmed, `%` and `_` wildcards, `\` PostgreSQL's escape (SQLite's `LIKE` is
    /// case-insensitive for the ASCII a search may hold).
    private static func searchClause(_ search: String?) -> (String, StatementArguments) {
        guard let search else { return ("", []) }
        let pattern = "%\(search)%"
        return ("WHERE name LIKE ? ESCAPE '\\' OR description LIKE ? ESCAPE '\\'", [pattern, pattern])
    }

    static func count(_ request: APIRequest, _ services: EmulatorServices) async throws -> Response {
        var query = request.query
        try query.rejectUnknown(allowed: ["search"])
        _ = try await AdminOnly.functions.require(request, services)
        let search = query.search(trimming: false)
        try query.validate()
        let (clause, arguments) = searchClause(search)
        let count = try await services.database.pool.read { db in
            try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM _selfdb_functions \(clause)", arguments: arguments) ?? 0
        }
        return .json(.int(Int64(count)))
    }

    static func list(_ request: APIRequest, _ services: EmulatorServices) async throws -> Response {
        var query = request.query
        try query.rejectUnknown(allowed: ["limit", "offset", "search", "sort_by", "sort_order"])
        _ = try await AdminOnly.functions.require(request, services)
        let page = PageQuery.read(&query, defaultLimit: 20, maximumLimit: 100)
        let search = query.search(trimming: false)
        let sortBy = query.literal("sort_by", allowed: sortable, default: "created_at")
        let descending = query.literal("sort_order", allowed: ["asc", "desc"], default: "desc") == "desc"
        try query.validate()
        let (clause, arguments) = searchClause(search)
        // PostgreSQL's NULLS LAST, then insertion order for equal keys.
        let direction = descending ? "DESC" : "ASC"
        let order = "ORDER BY \(SQLIdentifier.quote(sortBy)) IS NULL, \(SQLIdentifier.quote(sortBy)) \(direction), rowid \(direction)"
        let (items, total) = try await services.database.pool.read { db in
            try page.items(of: "_selfdb_functions", filter: clause, arguments: arguments, order: order, in: db) { FunctionRecord(row: $0).json }
        }
        return .json(page.envelope("functions", items: items, total: total))
    }

    static func create(_ request: APIRequest, _ services: EmulatorServices) async throws -> Response {
        let payload = try request.json()
        let admin = try await AdminOnly.functions.require(request, services)
        var body = BodyReader(payload)
        let name = body.string("name", required: true, nullable: false, minLength: 1, maxLength: 255, pattern: (namePattern, isValidName))
        let code = body.nonBlankString("code", required: true, blankMessage: blankCode)
        let description = body.string("description", maxLength: 1000)
        let timeout = body.int("timeout_seconds", nullable: false, minimum: 5, maximum: 300)
        let environment = body.stringDictionary("env_vars")
        body.forbidExtraFields()
        try body.validate()
        guard let name, let code else { throw APIError.validation(body.issues) }

        let now = Timestamp.now()
        let id = UUIDText.random()
        let json = try await services.database.pool.write { db in
            guard try FunctionRecord.find(name: name, in: db) == nil else { throw FunctionRecord.nameTaken(name) }
            try db.execute(
                sql: """
                    INSERT INTO _selfdb_functions (id, name, code, description, timeout_seconds, env_vars, owner_id, created_at, updated_at)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
                    """,
                arguments: [id, name, code, description, timeout ?? 30, environmentText(environment ?? []), admin.id, now, now]
            )
            return try FunctionRecord.load(id, in: db).json
        }
        return .json(json, status: .created)
    }

    static func read(_ request: APIRequest, _ services: EmulatorServices) async throws -> Response {
        let function = try await load(request, services)
        _ = try await AdminOnly.functions.require(request, services)
        return .json(function.json)
    }

    static func update(_ request: APIRequest, _ services: EmulatorServices) async throws -> Response {
        let payload = try request.json()
        let function = try await load(request, services)
        _ = try await AdminOnly.functions.require(request, services)
        var body = BodyReader(payload)
        let name = body.string("name", minLength: 1, maxLength: 255, pattern: (namePattern, isValidName))
        let description = body.string("description", maxLength: 1000)
        let code = body.nonBlankString("code", required: false, blankMessage: blankCode)
        let timeout = body.int("timeout_seconds", minimum: 5, maximum: 300)
        let isActive = body.laxBool("is_active")
        let environment = body.stringDictionary("env_vars")
        body.forbidExtraFields()
        try body.validate()

        var update = PartialUpdate()
        update.set("name", name)
        update.set("description", description)
        update.set("code", code)
        update.set("timeout_seconds", timeout)
        update.set("is_active", isActive)
        update.set("env_vars", environment.map(environmentText))
        guard !update.isEmpty else { return .json(function.json) }
        if code != nil {
            // New code is a new version, to be deployed again.
            update.set(sql: "version = version + 1")
            update.set(sql: "deployment_status = 'pending'")
        }
        let statement = update.statement(table: "_selfdb_functions", id: function.id, now: Timestamp.now())
        let json = try await services.database.pool.write { db in
            if let name, name != function.name, try FunctionRecord.find(name: name, in: db) != nil {
                throw FunctionRecord.nameTaken(name)
            }
            try db.execute(sql: statement.sql, arguments: statement.arguments)
            return try FunctionRecord.load(function.id, in: db).json
        }
        return .json(json)
    }

    static func delete(_ request: APIRequest, _ services: EmulatorServices) async throws -> Response {
        let function = try await load(request, services)
        _ = try await AdminOnly.functions.require(request, services)
        try await services.database.pool.write { db in
            try db.execute(sql: "DELETE FROM _selfdb_functions WHERE id = ?", arguments: [function.id])
        }
        return .empty(.noContent)
    }

    static func deploy(_ request: APIRequest, _ services: EmulatorServices) async throws -> Response {
        let function = try await load(request, services)
        _ = try await AdminOnly.functions.require(request, services)
        let failure = FunctionRuntime.unavailable
        let json = try await services.database.pool.write { db in
            try db.execute(
                sql: "UPDATE _selfdb_functions SET deployment_status = 'failed', deployment_error = ?, updated_at = ? WHERE id = ?",
                arguments: [failure, Timestamp.now(), function.id]
            )
            return try FunctionRecord.load(function.id, in: db).json
        }
        return .json(json)
    }

    static func setEnvironment(_ request: APIRequest, _ services: EmulatorServices) async throws -> Response {
        let payload = try request.json()
        let function = try await load(request, services)
        _ = try await AdminOnly.functions.require(request, services)
        var body = BodyReader(payload)
        let environment = body.stringDictionary("env_vars", required: true)
        body.forbidExtraFields()
        try body.validate()
        guard let environment else { throw APIError.validation(body.issues) }
        let json = try await services.database.pool.write { db in
            try db.execute(
                sql: "UPDATE _selfdb_functions SET env_vars = ?, updated_at = ? WHERE id = ?",
                arguments: [environmentText(environment), Timestamp.now(), function.id]
            )
            return try FunctionRecord.load(function.id, in: db).json
        }
        return .json(json)
    }

    /// A body that is not JSON is refused before anything else (FastAPI reads the body before
    /// it runs a single dependency), so each handler parses it first.
    ///
    /// The function the path names, or 404 (SelfDB looks it up before checking the role).
    static func load(_ request: APIRequest, _ services: EmulatorServices) async throws -> FunctionRecord {
        let id = request.parameter("function_id")
        return try await services.database.pool.read { db in try FunctionRecord.load(id, in: db) }
    }

    private static func environmentText(_ pairs: [(String, String)]) -> String {
        JSONWriter.string(.object(JSONObject(pairs.map { ($0.0, JSONValue.string($0.1)) })))
    }
}

extension Unicode.Scalar {
    fileprivate var isASCIILetter: Bool { ("a"..."z").contains(self) || ("A"..."Z").contains(self) }
}

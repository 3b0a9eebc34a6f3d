import EmulatorSupport
import GRDB
import Hummingbird

/// The runtime's callback, and the runs and log lines it records.
extension FunctionRoutes {
    /// `POST /functions/{function_name}/execution-result`: what SelfDB's Deno service reports
    /// after a run. SelfDB asks only for the API key here (no user), and so does the emulator;
    /// a name no function has is acknowledged with a warning and records nothing.
    static func reportExecution(_ request: APIRequest, _ services: EmulatorServices) async throws -> Response {
        var body = BodyReader(try request.json())
        _ = body.string("execution_id", nullable: false)
        _ = body.string("function_name", nullable: false)
        let success = body.bool("success", nullable: false) ?? false
        let result = body.any("result")
        let logs = body.stringArray("logs") ?? []
        let milliseconds = readExecutionTime(&body)
        _ = body.string("timestamp")
        let deliveryID = body.string("delivery_id")
        try body.validate()

        let name = request.parameter("function_name")
        guard !name.isEmpty, name.unicodeScalars.count <= 255, name.unicodeScalars.allSatisfy({ $0.isASCII && $0 != "\0" }) else {
            throw APIError.notFound("Function not found")
        }
        let executionID: String? = try await services.database.pool.write { db in
            guard let function = try FunctionRecord.find(name: name, in: db) else { return nil }
            return try record(run: Run(success: success, result: result, logs: logs, milliseconds: milliseconds, deliveryID: deliveryID), of: function, in: db)
        }
        guard let executionID else {
            return .json(.object(JSONObject([("received", .bool(true)), ("warning", .string("Function not found"))])))
        }
        return .json(.object(JSONObject([("received", .bool(true)), ("execution_id", .string(executionID))])))
    }

    /// One run as the runtime reports it.
    struct Run {
        var success: Bool
        var result: JSONValue?
        var logs: [String]
        var milliseconds: Double
        var deliveryID: String?
    }

    /// Updates the function's counters and records the run and its log lines, as SelfDB does.
    private static func record(run: Run, of function: FunctionRecord, in db: Database) throws -> String {
        let now = Timestamp.now()
        let count = function.executionCount
        let oldAverage = function.averageMilliseconds ?? 0
        // SelfDB's running mean, integer-truncated the way Python's int() truncates.
        let average = oldAverage == 0 ? run.milliseconds : (Double(oldAverage) * Double(count) + run.milliseconds) / Double(count + 1)
        // SelfDB's columns are 4-byte INTEGERs: a larger time fails the UPDATE, which it answers
        // with a 400 and nothing recorded.
        guard average < 2_147_483_648, run.milliseconds < 2_147_483_648 else {
            throw APIError.badRequest("Failed to process execution result: integer out of range")
        }
        // SelfDB stores any truthy result, then cannot list the runs (500: a run's result must
        // be an object); the emulator refuses such a result here instead, and records nothing.
        if let result = run.result, PythonText.isTruthy(result), result.objectValue == nil {
            throw APIError.badRequest(
                "Failed to process execution result: the SelfDB emulator records a run's result only when it is a JSON object (SelfDB v0.0.5 stores a \(result.pythonTypeName), then answers 500 when the runs are listed)"
            )
        }
        try db.execute(
            sql: """
                UPDATE _selfdb_functions SET execution_count = execution_count + 1,
                    execution_success_count = execution_success_count + ?, execution_error_count = execution_error_count + ?,
                    avg_execution_time_ms = ?, last_executed_at = ?, updated_at = ? WHERE id = ?
                """,
            arguments: [run.success ? 1 : 0, run.success ? 0 : 1, Int64(average), now, now, function.id]
        )
        let executionID = UUIDText.random()
        // A falsy result (null, 0, "", [], {}, false) is stored as no result, as SelfDB's
        // `if result.result` does; a failure's message is Python's str() of the result.
        let stored = run.result.flatMap { PythonText.isTruthy($0) ? $0 : nil }
        try db.execute(
            sql: """
                INSERT INTO _selfdb_function_executions (id, function_id, user_id, trigger_type, status, started_at,
                    completed_at, duration_ms, result, error_message, created_at)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                """,
            arguments: [
                executionID, function.id, function.ownerID, (run.deliveryID ?? "").isEmpty ? "http" : "webhook",
                run.success ? "completed" : "failed", now, now, Int64(run.milliseconds), StoredJSON.encode(stored),
                run.success ? nil : PythonText.str(run.result ?? .null), now,
            ]
        )
        for line in run.logs {
            let level = line.hasPrefix("[ERROR]") ? "error" : line.hasPrefix("[WARN]") ? "warn" : "info"
            try db.execute(
                sql: "INSERT INTO _selfdb_function_logs (id, execution_id, function_id, log_level, message, timestamp) VALUES (?, ?, ?, ?, ?, ?)",
                arguments: [UUIDText.random(), executionID, function.id, level, line, now]
            )
        }
        return executionID
    }

    /// `execution_time_ms`: SelfDB's own validator refuses null and booleans, then `ge=0`.
    private static func readExecutionTime(_ body: inout BodyReader) -> Double {
        guard let (key, value) = body.raw("execution_time_ms", aliases: [], required: false) else { return 0 }
        let number: Double
        switch value {
        case .null:
            body.fail(.valueError(.body, key, message: "execution_time_ms cannot be null", input: value))
            return 0
        case .bool:
            body.fail(.valueError(.body, key, message: "execution_time_ms must be a number, not boolean", input: value))
            return 0
        case .int(let integer): number = Double(integer)
        case .double(let double): number = double
        default:
            body.fail(.valueError(.body, key, message: "execution_time_ms must be a number", input: value))
            return 0
        }
        guard number >= 0 else {
            body.fail(.greaterThanOrEqual(.body, key, limit: 0, input: value))
            return 0
        }
        return number
    }

    /// `GET /functions/{id}/executions`: the runs, newest first.
    static func executions(_ request: APIRequest, _ services: EmulatorServices) async throws -> Response {
        try request.query.rejectUnknown(allowed: ["limit", "offset"])
        let function = try await load(request, services)
        _ = try await AdminOnly.functions.require(request, services)
        let page = try PageQuery.read(request, defaultLimit: 20, maximumLimit: 100)
        let (items, total) = try await services.database.pool.read { db in
            try page.items(
                of: "_selfdb_function_executions",
                filter: "WHERE function_id = ?",
                arguments: [function.id],
                order: "ORDER BY started_at DESC, rowid DESC",
                in: db,
                executionJSON
            )
        }
        return .json(page.envelope("executions", items: items, total: total))
    }

    /// `GET /functions/{id}/logs`: the log lines, newest first, optionally of one level.
    static func logs(_ request: APIRequest, _ services: EmulatorServices) async throws -> Response {
        try request.query.rejectUnknown(allowed: ["limit", "offset", "level"])
        let function = try await load(request, services)
        _ = try await AdminOnly.functions.require(request, services)
        let page = try PageQuery.read(request, defaultLimit: 100, maximumLimit: 500)
        let level = request.query["level"].flatMap { $0.isEmpty ? nil : $0 }
        let filter = level == nil ? "WHERE function_id = ?" : "WHERE function_id = ? AND log_level = ?"
        let arguments: StatementArguments = level.map { [function.id, $0] } ?? [function.id]
        let (items, total) = try await services.database.pool.read { db in
            try page.items(of: "_selfdb_function_logs", filter: filter, arguments: arguments, order: "ORDER BY timestamp DESC, rowid DESC", in: db) { row in
                .object(
                    JSONObject([
                        ("id", .string(row["id"])), ("execution_id", .string(row["execution_id"])), ("function_id", .string(row["function_id"])),
                        ("log_level", .string(row["log_level"])), ("message", .string(row["message"])), ("timestamp", .string(row["timestamp"])),
                    ])
                )
            }
        }
        return .json(page.envelope("logs", items: items, total: total))
    }

    private static func executionJSON(_ row: Row) -> JSONValue {
        .object(
            JSONObject([
                ("id", .string(row["id"])),
                ("function_id", .string(row["function_id"])),
                ("user_id", .string(row["user_id"])),
                ("trigger_type", .string(row["trigger_type"])),
                ("status", .string(row["status"])),
                ("started_at", .string(row["started_at"])),
                ("completed_at", .optional(row["completed_at"])),
                ("duration_ms", (row["duration_ms"] as Int64?).map(JSONValue.int) ?? .null),
                ("result", StoredJSON.decode(row["result"]) ?? .null),
                ("error_message", .optional(row["error_message"])),
                ("created_at", .string(row["created_at"])),
            ])
        )
    }
}

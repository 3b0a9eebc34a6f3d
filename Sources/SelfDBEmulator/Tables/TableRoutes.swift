import EmulatorSupport
import Foundation
import GRDB
import Hummingbird

/// `/tables/...`: user table metadata (the table itself, not its rows).
enum TableRoutes {
    static func register(in table: inout RouteTable) {
        table.add(.get, "/tables/count", count)
        table.add(.post, "/tables/", create)
        table.add(.get, "/tables/", list)
        table.add(.get, "/tables/{table_id:uuid}", read)
        table.add(.patch, "/tables/{table_id:uuid}", update)
        table.add(.delete, "/tables/{table_id:uuid}", delete)
    }

    static let tableNamePattern = "^[a-z][a-z0-9_]*$"

    /// Reads and checks `name` as SelfDB's `validate_table_name` does.
    static func tableName(_ body: inout BodyReader, required: Bool) -> String? {
        guard
            let raw = body.string(
                "name",
                required: required,
                nullable: !required,
                minLength: 1,
                maxLength: 63,
                pattern: (tableNamePattern, { SQLIdentifier.isValidTableName($0.trimmingSpaces) })
            )
        else { return nil }
        let name = raw.trimmingSpaces
        if SQLIdentifier.reservedTableNames.contains(name) {
            body.fail(
                .valueError(.body, "name", message: "Table name \"\(name)\" is a reserved keyword and cannot be used", input: .string(raw))
            )
            return nil
        }
        if name.hasPrefix("sqlite_") {
            body.fail(.valueError(.body, "name", message: "Table name \"\(name)\" is reserved", input: .string(raw)))
            return nil
        }
        return name
    }

    static func count(_ request: APIRequest, _ services: EmulatorServices) async throws -> Response {
        try await OwnedResourceListing.count(request, services, table: "_selfdb_tables")
    }

    static func list(_ request: APIRequest, _ services: EmulatorServices) async throws -> Response {
        try await OwnedResourceListing.list(request, services, table: "_selfdb_tables") { row, db in try TableRecord(row: row).json(in: db) }
    }

    static func create(_ request: APIRequest, _ services: EmulatorServices) async throws -> Response {
        var body = BodyReader(try request.json())
        let name = tableName(&body, required: true)
        let schema = body.dictionary("table_schema", required: true)
        let isPublic = body.bool("public") ?? false
        let description = body.string("description", maxLength: 500)
        let metadata = body.dictionary("metadata") ?? JSONObject()
        let parsed = parsedSchema(schema, &body)
        body.forbidExtraFields()
        let user = try await services.authenticator.requireUser(request)
        try body.validate()
        guard let name, let parsed else { throw APIError.validation(body.issues) }

        let now = Timestamp.now()
        let record = TableRecord(
            id: UUIDText.random(),
            name: name,
            schema: parsed.schema,
            columns: parsed.columns,
            isPublic: isPublic,
            description: description,
            metadata: .object(metadata),
            ownerID: user.id,
            realtimeEnabled: false,
            createdAt: now,
            updatedAt: now
        )
        let outcome: (json: JSONValue, realtime: JSONValue?) = try await services.database.pool.write { db in
            if let existing = try TableRecord.find(name: name, in: db) {
                return (try existing.json(in: db), nil)
            }
            try TableDDL.create(record, in: db)
            try record.insert(db)
            return (record.json(rowCount: 0), try record.realtimeJSON(in: db))
        }
        if let realtime = outcome.realtime {
            services.realtime.broadcast(table: "tables", change: .insert, new: realtime, old: nil)
        }
        return .json(outcome.json, status: .created)
    }

    /// The columns of a `table_schema`, or nil with the problem recorded on `body` (so every
    /// field's issue is reported in one 422, as FastAPI does).
    private static func parsedSchema(_ schema: JSONObject?, _ body: inout BodyReader) -> (schema: JSONObject, columns: [ColumnDefinition])? {
        guard let schema else { return nil }
        switch TableSchemaReader.columns(from: schema) {
        case .success(let value): return value
        case .failure(let issue):
            body.fail(issue)
            return nil
        }
    }

    static func read(_ request: APIRequest, _ services: EmulatorServices) async throws -> Response {
        let user = try await services.authenticator.optionalUser(request)
        let id = request.parameter("table_id")
        let json = try await services.database.pool.read { db in
            let table = try TableAccess.load(id, in: db)
            try TableAccess.requireRead(table, user)
            return try table.json(in: db)
        }
        return .json(json)
    }

    static func update(_ request: APIRequest, _ services: EmulatorServices) async throws -> Response {
        var body = BodyReader(try request.json())
        let name = tableName(&body, required: false)
        let schema = body.dictionary("table_schema")
        let isPublic = body.bool("public")
        let description = body.string("description", maxLength: 500)
        let hasDescription = body.has("description")
        let metadata = body.dictionary("metadata")
        let realtimeEnabled = body.bool("realtime_enabled")
        let parsed = parsedSchema(schema, &body)
        body.forbidExtraFields()
        let user = try await services.authenticator.requireUser(request)
        try body.validate()

        let id = request.parameter("table_id")
        let newShape = parsed
        let json = try await services.database.pool.write { db in
            var table = try TableAccess.load(id, in: db)
            try TableAccess.requireOwner(table, user)
            if let name, name != table.name {
                if try TableRecord.find(name: name, in: db) != nil {
                    throw APIError.conflict("Table name already exists")
                }
                try TableDDL.rename(table.name, to: name, in: db)
                table.name = name
            }
            if let parsed = newShape {
                // A new table_schema reshapes the table: same-named columns keep their data.
                let sources = Dictionary(
                    uniqueKeysWithValues: parsed.columns.compactMap { column in
                        table.column(named: column.name).map { _ in (column.name, column.name) }
                    }
                )
                try TableDDL.rebuild(table.name, from: table.columns, to: parsed.columns, sources: sources, in: db)
                table.columns = parsed.columns
                table.schema = parsed.schema
            }
            if let isPublic { table.isPublic = isPublic }
            if hasDescription, let description { table.description = description }
            if let metadata { table.metadata = .object(metadata) }
            if let realtimeEnabled { table.realtimeEnabled = realtimeEnabled }
            table.updatedAt = Timestamp.now()
            try table.update(db)
            return try table.json(in: db)
        }
        return .json(json)
    }

    static func delete(_ request: APIRequest, _ services: EmulatorServices) async throws -> Response {
        let user = try await services.authenticator.requireUser(request)
        let id = request.parameter("table_id")
        let (name, realtime) = try await services.database.pool.write { db in
            let table = try TableAccess.load(id, in: db)
            try TableAccess.requireOwner(table, user)
            let realtime = try table.realtimeJSON(in: db)
            try TableDDL.drop(table.name, in: db)
            try db.execute(sql: "DELETE FROM _selfdb_tables WHERE id = ?", arguments: [id])
            return (table.name, realtime)
        }
        services.realtime.broadcast(table: "tables", change: .delete, new: nil, old: realtime)
        return .json(["status": "table_deleted", "id": .string(id), "name": .string(name)])
    }
}

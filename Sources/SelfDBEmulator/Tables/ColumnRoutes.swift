import EmulatorSupport
import GRDB
import Hummingbird

/// `/tables/{id}/columns...`: adding, changing and removing columns of a user table.
enum ColumnRoutes {
    static func register(in table: inout RouteTable) {
        table.add(.post, "/tables/{table_id:uuid}/columns", add)
        table.add(.patch, "/tables/{table_id:uuid}/columns/{column_name}", update)
        table.add(.delete, "/tables/{table_id:uuid}/columns/{column_name}", remove)
    }

    private static func defaultLiteral(_ raw: String?, kind: ColumnKind) throws(APIError) -> String? {
        guard let raw, !raw.isEmpty else { return nil }
        do {
            return try SQLDefault.literal(raw, kind: kind)
        } catch {
            throw APIError.badRequest("Unsupported default expression: \(raw)")
        }
    }

    private static func checkedName(_ raw: String) throws(APIError) -> String {
        let name = raw.trimmingSpaces
        guard SQLIdentifier.isValidColumnName(name) else {
            throw APIError.badRequest("Invalid column name '\(raw)': use letters, digits and underscores")
        }
        return name
    }

    static func add(_ request: APIRequest, _ services: EmulatorServices) async throws -> Response {
        var body = BodyReader(try request.json())
        let rawName = body.string("name", required: true)
        let type = body.string("type", required: true)
        let nullable = body.bool("nullable") ?? true
        let rawDefault = body.string("default")
        // SelfDB's column bodies ignore keys they do not know (no forbidExtraFields).
        let user = try await services.authenticator.requireUser(request)
        try body.validate()
        guard let rawName, let type else { throw APIError.validation(body.issues) }

        let id = request.parameter("table_id")
        let name = try await services.database.pool.write { db in
            var table = try TableAccess.load(id, in: db)
            try TableAccess.requireOwner(table, user)
            let name = try checkedName(rawName)
            guard let parsed = ColumnKind.known(type) else {
                throw APIError.badRequest("type \"\(type)\" does not exist")
            }
            guard table.column(named: name) == nil else {
                throw APIError.conflict("Column '\(name)' already exists")
            }
            let column = ColumnDefinition(
                name: name,
                type: type,
                kind: parsed.kind,
                length: parsed.length,
                nullable: nullable,
                sqlDefault: try defaultLiteral(rawDefault, kind: parsed.kind)
            )
            if !nullable && column.sqlDefault == nil {
                // SQLite cannot ADD a NOT NULL column without default; Postgres can when
                // the table is empty.
                try TableDDL.rebuild(
                    table.name,
                    from: table.columns,
                    to: table.columns + [column],
                    sources: Dictionary(uniqueKeysWithValues: table.columns.map { ($0.name, $0.name) }),
                    in: db
                )
            } else {
                try TableDDL.addColumn(column, table: table.name, in: db)
            }
            table.columns.append(column)
            var entry = JSONObject([("type", .string(type)), ("nullable", .bool(nullable))])
            if let rawDefault, !rawDefault.isEmpty { entry["default"] = .string(rawDefault) }
            table.schema[name] = .object(entry)
            table.updatedAt = Timestamp.now()
            try table.update(db)
            return name
        }
        return .json(["status": "column_added", "column": .string(name)])
    }

    static func update(_ request: APIRequest, _ services: EmulatorServices) async throws -> Response {
        var body = BodyReader(try request.json())
        let newName = body.string("new_name")
        let type = body.string("type")
        let nullable = body.bool("nullable")
        let hasDefault = body.has("default")
        let rawDefault = body.string("default")
        let user = try await services.authenticator.requireUser(request)
        try body.validate()

        let id = request.parameter("table_id")
        let columnName = request.parameter("column_name").trimmingSpaces
        let hasChanges = body.has("new_name") || body.has("type") || body.has("nullable") || hasDefault
        let result: JSONValue = try await services.database.pool.write { db in
            var table = try TableAccess.load(id, in: db)
            try TableAccess.requireOwner(table, user)
            // SelfDB answers 400 (not 404) for a column the table does not have.
            guard let index = table.columns.firstIndex(where: { $0.name == columnName }) else {
                throw APIError.badRequest("Column '\(columnName)' does not exist in table '\(table.name)'")
            }
            guard hasChanges else { return ["status": "no_changes"] }
            let old = table.columns[index]
            var column = old
            var entry = table.schema[columnName]?.objectValue ?? JSONObject()
            if let newName, !newName.isEmpty, newName.trimmingSpaces != columnName {
                let name = try checkedName(newName)
                guard table.column(named: name) == nil else {
                    throw APIError.badRequest("column \"\(name)\" of relation \"\(table.name)\" already exists")
                }
                try TableDDL.renameColumn(columnName, to: name, table: table.name, in: db)
                column.name = name
            }
            if let type, !type.isEmpty {
                guard let parsed = ColumnKind.known(type) else {
                    throw APIError.badRequest("type \"\(type)\" does not exist")
                }
                column.type = type
                column.kind = parsed.kind
                column.length = parsed.length
                entry["type"] = .string(type)
            }
            if let nullable {
                column.nullable = nullable
                entry["nullable"] = .bool(nullable)
            }
            if hasDefault {
                column.sqlDefault = try defaultLiteral(rawDefault, kind: column.kind)
                entry["default"] = rawDefault.flatMap { $0.isEmpty ? nil : JSONValue.string($0) }
            }
            let renamed = table.columns[index]
            table.columns[index] = column
            if column.kind != renamed.kind || column.length != renamed.length || column.nullable != renamed.nullable
                || column.sqlDefault != renamed.sqlDefault
            {
                var before = table.columns
                before[index] = ColumnDefinition(
                    name: column.name,
                    type: old.type,
                    kind: old.kind,
                    length: old.length,
                    nullable: old.nullable,
                    sqlDefault: old.sqlDefault
                )
                try TableDDL.rebuild(
                    table.name,
                    from: before,
                    to: table.columns,
                    sources: Dictionary(uniqueKeysWithValues: table.columns.map { ($0.name, $0.name) }),
                    in: db
                )
            }
            var schema = JSONObject()
            for (key, value) in table.schema {
                if key == columnName {
                    schema[column.name] = .object(entry)
                } else {
                    schema[key] = value
                }
            }
            if !schema.contains(column.name) { schema[column.name] = .object(entry) }
            table.schema = schema
            table.updatedAt = Timestamp.now()
            try table.update(db)
            return ["status": "column_updated", "column": .string(column.name)]
        }
        return .json(result)
    }

    static func remove(_ request: APIRequest, _ services: EmulatorServices) async throws -> Response {
        let user = try await services.authenticator.requireUser(request)
        let id = request.parameter("table_id")
        let columnName = request.parameter("column_name").trimmingSpaces
        try await services.database.pool.write { db in
            var table = try TableAccess.load(id, in: db)
            try TableAccess.requireOwner(table, user)
            guard table.column(named: columnName) != nil else {
                throw APIError.notFound("Column '\(columnName)' not found")
            }
            guard table.columns.count > 1 else {
                throw APIError.badRequest("Cannot drop the only column of table \"\(table.name)\"")
            }
            try TableDDL.dropColumn(columnName, table: table.name, in: db)
            table.columns.removeAll { $0.name == columnName }
            table.schema[columnName] = nil
            table.updatedAt = Timestamp.now()
            try table.update(db)
        }
        return .json(["status": "column_deleted", "column": .string(columnName)])
    }
}

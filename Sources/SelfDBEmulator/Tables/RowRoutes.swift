import EmulatorSupport
import GRDB
import Hummingbird

/// `/tables/{id}/data...`: reading and writing the rows of a user table.
enum RowRoutes {
    static func register(in table: inout RouteTable) {
        table.add(.get, "/tables/{table_id:uuid}/data", fetch)
        table.add(.post, "/tables/{table_id:uuid}/data", insert)
        table.add(.patch, "/tables/{table_id:uuid}/data/{row_id}", update)
        table.add(.delete, "/tables/{table_id:uuid}/data/{row_id}", delete)
    }

    /// A row as JSON, values decoded by their column's kind.
    static func rowJSON(_ row: Row, table: TableRecord) -> JSONValue {
        var object = JSONObject()
        for (name, value) in row where name != "_selfdb_rowid" {
            object[name] = ValueCoding.decode(value, kind: table.column(named: name)?.kind)
        }
        return .object(object)
    }

    private static func quoted(_ table: TableRecord) -> String {
        SQLIdentifier.quote(table.name)
    }

    static func fetch(_ request: APIRequest, _ services: EmulatorServices) async throws -> Response {
        var query = request.query
        try query.rejectUnknown(allowed: ["page", "page_size", "search", "sort_by", "sort_order"])
        let page = query.int("page", default: 1, minimum: 1)
        let pageSize = query.int("page_size", default: 100, minimum: 1, maximum: 1000)
        let search = query.search()
        let sortBy = query.string("sort_by", maxLength: 100)?.trimmingSpaces
        let descending = query.literal("sort_order", allowed: ["asc", "desc"], default: "desc") == "desc"
        try query.validate()
        let user = try await services.authenticator.optionalUser(request)
        let id = request.parameter("table_id")

        let json: JSONValue = try await services.database.pool.read { db in
            let table = try TableAccess.load(id, in: db)
            try TableAccess.requireRead(table, user)
            var order = "ORDER BY rowid ASC"
            if let sortBy, !sortBy.isEmpty {
                guard table.column(named: sortBy) != nil else {
                    throw APIError.badRequest(
                        "Invalid sort_by column: '\(sortBy)'. Valid columns: \(table.columns.map(\.name).joined(separator: ", "))"
                    )
                }
                let direction = descending ? "DESC" : "ASC"
                order = "ORDER BY \(SQLIdentifier.quote(sortBy)) \(direction), rowid \(direction)"
            }
            var filter = ""
            var arguments: StatementArguments = []
            let searchable = table.columns.filter { $0.kind.isSearchable }
            if let search, !searchable.isEmpty {
                let pattern = Listing.likePattern(search)
                filter =
                    "WHERE "
                    + searchable.map { "CAST(\(SQLIdentifier.quote($0.name)) AS TEXT) LIKE ? ESCAPE '\\'" }
                    .joined(separator: " OR ")
                for _ in searchable { arguments += [pattern] }
            }
            let total = try Int64.fetchOne(db, sql: "SELECT COUNT(*) FROM \(quoted(table)) \(filter)", arguments: arguments) ?? 0
            let offset = (page - 1).multipliedReportingOverflow(by: pageSize)
            let rows = try Row.fetchAll(
                db,
                sql: "SELECT * FROM \(quoted(table)) \(filter) \(order) LIMIT ? OFFSET ?",
                arguments: arguments + [pageSize, offset.overflow ? Int64.max : offset.partialValue]
            )
            return [
                "data": .array(rows.map { rowJSON($0, table: table) }),
                "total": .int(total),
                "page": .int(page),
                "page_size": .int(pageSize),
            ]
        }
        return .json(json)
    }

    /// Encodes `values` for `table`, rejecting unknown columns as Postgres would.
    private static func encode(_ values: JSONObject, for table: TableRecord) throws(APIError) -> [(String, DatabaseValue)] {
        var encoded: [(String, DatabaseValue)] = []
        for (rawName, value) in values {
            let name = rawName.trimmingSpaces
            guard let column = table.column(named: name) else {
                throw APIError.badRequest("column \"\(name)\" of relation \"\(table.name)\" does not exist")
            }
            do {
                encoded.append((name, try ValueCoding.encode(value, for: column, table: table.name)))
            } catch {
                throw APIError.badRequest(error.message)
            }
        }
        return encoded
    }

    private static func constraintMessage(_ error: DatabaseError, table: TableRecord) -> String {
        if error.extendedResultCode == .SQLITE_CONSTRAINT_NOTNULL {
            let column = (error.message ?? "").split(separator: ".").last.map(String.init) ?? ""
            return "null value in column \"\(column)\" of relation \"\(table.name)\" violates not-null constraint"
        }
        return error.message ?? "database error"
    }

    static func insert(_ request: APIRequest, _ services: EmulatorServices) async throws -> Response {
        let body = try request.json()
        guard let body else { throw APIError.validation([.missing(.body, nil)]) }
        guard let values = body.objectValue else { throw APIError.validation([.dictType(.body, nil, input: body)]) }
        let user = try await services.authenticator.optionalUser(request)
        let id = request.parameter("table_id")

        let (row, table): (JSONValue, TableRecord) = try await services.database.pool.write { db in
            let table = try TableAccess.load(id, in: db)
            if !table.isPublic, user == nil {
                throw APIError.unauthorized("Authentication required for private tables")
            }
            guard !values.isEmpty else { throw APIError.badRequest("Row data cannot be empty") }
            var encoded = try encode(values, for: table)
            if let idColumn = table.column(named: "id"), idColumn.kind == .uuid {
                let given = encoded.first { $0.0 == "id" }?.1
                if given == nil || given == .null {
                    encoded.removeAll { $0.0 == "id" }
                    encoded.append(("id", UUIDText.random().databaseValue))
                }
            }
            let names = encoded.map { SQLIdentifier.quote($0.0) }.joined(separator: ", ")
            let placeholders = Array(repeating: "?", count: encoded.count).joined(separator: ", ")
            do {
                try db.execute(
                    sql: "INSERT INTO \(quoted(table)) (\(names)) VALUES (\(placeholders))",
                    arguments: StatementArguments(encoded.map(\.1))
                )
            } catch let error as DatabaseError where error.resultCode == .SQLITE_CONSTRAINT {
                throw APIError.badRequest(constraintMessage(error, table: table))
            }
            guard
                let inserted = try Row.fetchOne(
                    db,
                    sql: "SELECT * FROM \(quoted(table)) WHERE rowid = ?",
                    arguments: [db.lastInsertedRowID]
                )
            else { throw APIError(status: .internalServerError, detail: "Inserted row vanished") }
            return (rowJSON(inserted, table: table), table)
        }
        if table.realtimeEnabled {
            services.realtime.broadcast(table: table.name, change: .insert, new: row, old: nil)
        }
        return .json(["status": "row_inserted", "data": row])
    }

    /// The rows a PATCH/DELETE may touch: for non-admins only their own (by `user_id`).
    private static func target(
        _ request: APIRequest,
        table: TableRecord,
        user: UserRecord
    ) throws(APIError) -> (where: String, arguments: StatementArguments) {
        var query = request.query
        let idColumnName = (query.string("id_column") ?? "id").trimmingSpaces
        guard let idColumn = table.column(named: idColumnName) else {
            throw APIError.badRequest("column \"\(idColumnName)\" does not exist")
        }
        let rowID: DatabaseValue
        do {
            rowID = try ValueCoding.encode(.string(request.parameter("row_id")), for: idColumn, table: table.name)
        } catch {
            throw APIError.badRequest(error.message)
        }
        var clause = "WHERE \(SQLIdentifier.quote(idColumn.name)) = ?"
        var arguments: StatementArguments = [rowID]
        if !user.isAdmin {
            guard table.column(named: "user_id") != nil else {
                throw APIError.badRequest(
                    "Table \"\(table.name)\" has no user_id column: only admins can modify its rows"
                )
            }
            clause += " AND CAST(\"user_id\" AS TEXT) = ?"
            arguments += [user.id]
        }
        return (clause, arguments)
    }

    static func update(_ request: APIRequest, _ services: EmulatorServices) async throws -> Response {
        let body = try request.json()
        guard let body else { throw APIError.validation([.missing(.body, nil)]) }
        guard let values = body.objectValue else { throw APIError.validation([.dictType(.body, nil, input: body)]) }
        let user = try await services.authenticator.requireUser(request)
        let id = request.parameter("table_id")

        let (old, new, table): (JSONValue, JSONValue, TableRecord) = try await services.database.pool.write { db in
            let table = try TableAccess.load(id, in: db)
            guard !values.isEmpty else { throw APIError.badRequest("Update data cannot be empty") }
            let target = try target(request, table: table, user: user)
            let encoded = try encode(values, for: table)
            let rowIDs = try Int64.fetchAll(
                db,
                sql: "SELECT rowid FROM \(quoted(table)) \(target.where)",
                arguments: target.arguments
            )
            guard let first = rowIDs.first,
                let before = try Row.fetchOne(db, sql: "SELECT * FROM \(quoted(table)) WHERE rowid = ?", arguments: [first])
            else { throw APIError.notFound("Row not found or you don't have permission to update it") }
            let assignments = encoded.map { "\(SQLIdentifier.quote($0.0)) = ?" }.joined(separator: ", ")
            do {
                try db.execute(
                    sql: "UPDATE \(quoted(table)) SET \(assignments) \(target.where)",
                    arguments: StatementArguments(encoded.map(\.1)) + target.arguments
                )
            } catch let error as DatabaseError where error.resultCode == .SQLITE_CONSTRAINT {
                throw APIError.badRequest(constraintMessage(error, table: table))
            }
            guard let after = try Row.fetchOne(db, sql: "SELECT * FROM \(quoted(table)) WHERE rowid = ?", arguments: [first])
            else { throw APIError.notFound("Row not found") }
            return (rowJSON(before, table: table), rowJSON(after, table: table), table)
        }
        if table.realtimeEnabled {
            services.realtime.broadcast(table: table.name, change: .update, new: new, old: old)
        }
        return .json(["status": "row_updated", "data": new])
    }

    static func delete(_ request: APIRequest, _ services: EmulatorServices) async throws -> Response {
        let user = try await services.authenticator.requireUser(request)
        let id = request.parameter("table_id")
        let rowID = request.parameter("row_id")
        let (deleted, table): ([JSONValue], TableRecord) = try await services.database.pool.write { db in
            let table = try TableAccess.load(id, in: db)
            let target = try target(request, table: table, user: user)
            let rows = try Row.fetchAll(db, sql: "SELECT * FROM \(quoted(table)) \(target.where)", arguments: target.arguments)
            guard !rows.isEmpty else { throw APIError.notFound("Row not found or you don't have permission to delete it") }
            try db.execute(sql: "DELETE FROM \(quoted(table)) \(target.where)", arguments: target.arguments)
            return (rows.map { rowJSON($0, table: table) }, table)
        }
        if table.realtimeEnabled {
            for row in deleted {
                services.realtime.broadcast(table: table.name, change: .delete, new: nil, old: row)
            }
        }
        return .json(["status": "row_deleted", "table_id": .string(id), "row_id": .string(rowID)])
    }
}

import EmulatorSupport
import GRDB
import Hummingbird

/// `/users/...`: registration, login, sessions and user management.
enum UserRoutes {
    static func register(in table: inout RouteTable) {
        table.add(.post, "/users/token", login)
        table.add(.post, "/users/token/refresh", refresh)
        table.add(.post, "/users/logout", logout)
        table.add(.post, "/users/logout/all", logoutAll)
        table.add(.get, "/users/me", me)
        table.add(.get, "/users/count", count)
        table.add(.post, "/users/", create)
        table.add(.get, "/users/", list)
        table.add(.get, "/users/{user_id:uuid}", read)
        table.add(.patch, "/users/{user_id:uuid}", update)
        table.add(.delete, "/users/{user_id:uuid}", delete)
    }

    static func login(_ request: APIRequest, _ services: EmulatorServices) async throws -> Response {
        var body = BodyReader(try request.json())
        let email = body.string("email", required: true)
        let password = body.string("password", required: true)
        body.forbidExtraFields()
        try body.validate()
        guard let email, let password else { throw APIError.validation(body.issues) }
        let user = try await services.database.pool.read { db in try UserRecord.find(email: email, in: db) }
        guard let user, services.passwords.verify(password, against: user.passwordHash) else {
            throw APIError(status: .unauthorized, detail: "Incorrect email or password", headers: [.wwwAuthenticate: "Bearer"])
        }
        guard user.isActive else { throw APIError.badRequest("Inactive user") }
        let tokens = try await services.database.pool.write { db in
            try SystemRoutes.markInitialized(in: db)
            return try services.sessions.issue(for: user, in: db)
        }
        return .json(tokens)
    }

    static func refresh(_ request: APIRequest, _ services: EmulatorServices) async throws -> Response {
        var body = BodyReader(try request.json())
        // SelfDB's refresh body ignores keys it does not know.
        let token = body.string("refresh_token", required: true)
        try body.validate()
        return .json(try await services.sessions.refresh(token ?? ""))
    }

    static func logout(_ request: APIRequest, _ services: EmulatorServices) async throws -> Response {
        // The body is optional, may be JSON `null`, and ignores unknown keys; an empty
        // refresh token is refused rather than read as "every session".
        let json = try request.json()
        var refreshToken: String?
        if let json, !json.isNull {
            var body = BodyReader(json)
            refreshToken = body.string("refresh_token", minLength: 1)
            try body.validate()
        }
        let user = try await services.authenticator.requireUser(request)
        try await services.sessions.logout(user: user, refreshToken: refreshToken)
        return .json(["status": "logged_out"])
    }

    static func logoutAll(_ request: APIRequest, _ services: EmulatorServices) async throws -> Response {
        let user = try await services.authenticator.requireUser(request)
        try await services.sessions.logout(user: user, refreshToken: nil)
        return .json(["status": "logged_out"])
    }

    static func me(_ request: APIRequest, _ services: EmulatorServices) async throws -> Response {
        .json(try await services.authenticator.requireUser(request).json)
    }

    private static func searchFilter(_ search: String?) -> (sql: String, arguments: StatementArguments) {
        guard let search else { return ("", []) }
        let pattern = Listing.likePattern(search)
        return (
            "WHERE email LIKE ? ESCAPE '\\' OR first_name LIKE ? ESCAPE '\\' OR last_name LIKE ? ESCAPE '\\'",
            [pattern, pattern, pattern]
        )
    }

    static func count(_ request: APIRequest, _ services: EmulatorServices) async throws -> Response {
        var query = request.query
        try query.rejectUnknown(allowed: ["search"])
        let search = query.search()
        try query.validate()
        _ = try await services.authenticator.requireUser(request)
        let filter = searchFilter(search)
        let total = try await services.database.pool.read { db in
            try Int64.fetchOne(db, sql: "SELECT COUNT(*) FROM _selfdb_users \(filter.sql)", arguments: filter.arguments)
        }
        return .json(.int(total ?? 0))
    }

    static func create(_ request: APIRequest, _ services: EmulatorServices) async throws -> Response {
        var body = BodyReader(try request.json())
        let email = UserValidation.email(&body, required: true)
        let password = UserValidation.password(&body, required: true)
        let firstName = UserValidation.name(&body, "firstName", alias: "first_name", required: true)
        let lastName = UserValidation.name(&body, "lastName", alias: "last_name", required: true)
        body.forbidExtraFields()
        try body.validate()
        guard let email, let password, let firstName, let lastName else { throw APIError.validation(body.issues) }
        let result = try await UserService(services: services).create(
            email: email,
            password: password,
            firstName: firstName,
            lastName: lastName,
            role: "USER"
        )
        return .json(result.user.json, status: .created)
    }

    static func list(_ request: APIRequest, _ services: EmulatorServices) async throws -> Response {
        let listing = try Listing.read(request, sortable: ["created_at", "email", "first_name", "last_name"])
        _ = try await services.authenticator.requireUser(request)
        let filter = searchFilter(listing.search)
        let users = try await services.database.pool.read { db in
            try Row.fetchAll(
                db,
                sql: "SELECT * FROM _selfdb_users \(filter.sql) \(listing.orderClause) LIMIT ? OFFSET ?",
                arguments: filter.arguments + [listing.limit, listing.skip]
            ).map(UserRecord.init)
        }
        return .json(.array(users.map(\.json)))
    }

    static func read(_ request: APIRequest, _ services: EmulatorServices) async throws -> Response {
        _ = try await services.authenticator.requireUser(request)
        let id = request.parameter("user_id")
        guard let user = try await services.database.pool.read({ db in try UserRecord.find(id: id, in: db) }) else {
            throw APIError.notFound("User not found")
        }
        return .json(user.json)
    }

    static func update(_ request: APIRequest, _ services: EmulatorServices) async throws -> Response {
        var body = BodyReader(try request.json())
        let email = UserValidation.email(&body, required: false)
        let password = UserValidation.password(&body, required: false)
        let role = body.string("role")
        if let role, role != "USER" && role != "ADMIN" {
            body.fail(.literal(.body, "role", allowed: ["USER", "ADMIN"], input: .string(role)))
        }
        let isActive = body.laxBool("isActive", aliases: ["is_active"])
        let firstName = UserValidation.name(&body, "firstName", alias: "first_name", required: false)
        let lastName = UserValidation.name(&body, "lastName", alias: "last_name", required: false)
        body.forbidExtraFields()
        _ = try await services.authenticator.requireAdmin(request)
        try body.validate()

        let id = request.parameter("user_id")
        let passwordHash = try password.map { try services.passwords.hash($0) }
        let outcome: Result<(old: UserRecord, new: UserRecord), APIError> = try await services.database.pool.write { db in
            guard let old = try UserRecord.find(id: id, in: db) else { return .failure(.notFound("User not found")) }
            var user = old
            if let email, email.lowercased() != old.email.lowercased() {
                if try UserRecord.find(email: email, in: db) != nil {
                    return .failure(.conflict("Email already registered"))
                }
            }
            if let email { user.email = email }
            if let passwordHash { user.passwordHash = passwordHash }
            if let role { user.role = role }
            if let isActive { user.isActive = isActive }
            if let firstName { user.firstName = firstName }
            if let lastName { user.lastName = lastName }
            user.updatedAt = Timestamp.now()
            try user.update(db)
            if !user.isActive {
                try db.execute(sql: "UPDATE _selfdb_refresh_tokens SET revoked = 1 WHERE user_id = ?", arguments: [id])
            }
            return .success((old, user))
        }
        let change = try outcome.get()
        services.realtime.broadcast(table: "users", change: .update, new: change.new.realtimeJSON, old: change.old.realtimeJSON)
        return .json(change.new.json)
    }

    static func delete(_ request: APIRequest, _ services: EmulatorServices) async throws -> Response {
        _ = try await services.authenticator.requireAdmin(request)
        let id = request.parameter("user_id")
        let deleted: UserRecord? = try await services.database.pool.write { db in
            guard let user = try UserRecord.find(id: id, in: db) else { return nil }
            try db.execute(sql: "DELETE FROM _selfdb_users WHERE id = ?", arguments: [id])
            return user
        }
        guard let deleted else { throw APIError.notFound("User not found") }
        services.realtime.broadcast(table: "users", change: .delete, new: nil, old: deleted.realtimeJSON)
        return .json(["status": "user_deleted", "id": .string(id)])
    }
}

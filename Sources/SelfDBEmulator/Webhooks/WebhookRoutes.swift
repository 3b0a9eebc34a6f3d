import EmulatorSupport
import GRDB
import Hummingbird

/// `/webhooks/...`: SelfDB's webhooks, admins only but for the public trigger
/// (``WebhookRoutes/trigger(_:_:)``).
///
/// Registered in SelfDB's order, which decides what a path such as
/// `/webhooks/trigger/deliveries` reaches. The webhook id is a plain path parameter there (no
/// `:uuid` converter), so a malformed id reaches the handler: the admin check still runs
/// first, then SelfDB reports the id once per place that declares it (its lookup dependency
/// and, for most routes, the endpoint itself).
enum WebhookRoutes {
    static let blankSecret = "Secret key cannot be empty or whitespace only"

    static func register(in table: inout RouteTable) {
        table.add(.get, "/webhooks/", list)
        table.add(.post, "/webhooks/", create)
        table.add(.get, "/webhooks/{webhook_id}", read)
        table.add(.patch, "/webhooks/{webhook_id}", update)
        table.add(.delete, "/webhooks/{webhook_id}", delete)
        table.add(.post, "/webhooks/{webhook_id}/regenerate-token", regenerateToken)
        table.add(.post, "/webhooks/trigger/{webhook_token}", trigger)
        table.add(.get, "/webhooks/{webhook_id}/deliveries", deliveries)
        table.add(.post, "/webhooks/deliveries/{delivery_id}/retry", retry)
    }

    static func list(_ request: APIRequest, _ services: EmulatorServices) async throws -> Response {
        try request.query.rejectUnknown(allowed: ["limit", "offset"])
        _ = try await AdminOnly.webhooks.require(request, services)
        let page = try PageQuery.read(request, defaultLimit: 20, maximumLimit: 100)
        let (items, total) = try await services.database.pool.read { db in
            try page.items(of: "_selfdb_webhooks", order: "ORDER BY created_at DESC, rowid DESC", in: db) { WebhookRecord(row: $0).json }
        }
        return .json(page.envelope("webhooks", items: items, total: total))
    }

    static func create(_ request: APIRequest, _ services: EmulatorServices) async throws -> Response {
        let payload = try request.json()
        let admin = try await AdminOnly.webhooks.require(request, services)
        var body = BodyReader(payload)
        let functionID = body.uuid("function_id", required: true)
        let name = body.string("name", required: true, nullable: false, minLength: 1, maxLength: 255)
        let description = body.string("description", maxLength: 1000)
        let secret = body.nonBlankString("secret_key", required: true, blankMessage: blankSecret)
        let provider = body.string("provider", maxLength: 50)
        let eventType = body.string("provider_event_type", maxLength: 255)
        let rateLimit = body.int("rate_limit_per_minute", nullable: false, minimum: 1, maximum: 10_000)
        let attempts = body.int("retry_attempts", nullable: false, minimum: 1, maximum: 10)
        // Checked, but SelfDB v0.0.5 does not store it: the column keeps its default, 60.
        _ = body.int("retry_delay_seconds", nullable: false, minimum: 1, maximum: 3_600)
        body.forbidExtraFields()
        try body.validate()
        guard let functionID, let name, let secret else { throw APIError.validation(body.issues) }

        let now = Timestamp.now()
        let id = UUIDText.random()
        let json = try await services.database.pool.write { db in
            guard try FunctionRecord.find(id: functionID, in: db) != nil else {
                // PostgreSQL's words for the foreign key, which SelfDB passes on as a 400.
                throw APIError.badRequest(
                    """
                    insert or update on table "webhooks" violates foreign key constraint "webhooks_function_id_fkey"
                    DETAIL:  Key (function_id)=(\(functionID)) is not present in table "functions".
                    """
                )
            }
            try db.execute(
                sql: """
                    INSERT INTO _selfdb_webhooks (id, function_id, owner_id, name, description, provider, provider_event_type,
                        webhook_token, secret_key, rate_limit_per_minute, retry_attempts, created_at, updated_at)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                    """,
                arguments: [
                    id, functionID, admin.id, name, description, provider, eventType, WebhookRecord.newToken(), secret,
                    rateLimit ?? 100, attempts ?? 3, now, now,
                ]
            )
            return try WebhookRecord.load(id, in: db).json
        }
        return .json(json, status: .created)
    }

    static func read(_ request: APIRequest, _ services: EmulatorServices) async throws -> Response {
        let webhook = try await load(request, services, declarations: 1)
        return .json(webhook.json)
    }

    static func update(_ request: APIRequest, _ services: EmulatorServices) async throws -> Response {
        let payload = try request.json()
        var body = BodyReader(payload)
        let name = body.string("name", minLength: 1, maxLength: 255)
        let description = body.string("description", maxLength: 1000)
        let secret = body.nonBlankString("secret_key", required: false, blankMessage: blankSecret)
        let isActive = body.laxBool("is_active")
        let rateLimit = body.int("rate_limit_per_minute", minimum: 1, maximum: 10_000)
        let attempts = body.int("retry_attempts", minimum: 1, maximum: 10)
        let delay = body.int("retry_delay_seconds", minimum: 1, maximum: 3_600)
        body.forbidExtraFields()
        let webhook = try await load(request, services, declarations: 2, then: body.issues)
        try body.validate()

        var update = PartialUpdate()
        update.set("name", name)
        update.set("description", description)
        update.set("secret_key", secret)
        update.set("is_active", isActive)
        update.set("rate_limit_per_minute", rateLimit)
        update.set("retry_attempts", attempts)
        update.set("retry_delay_seconds", delay)
        guard !update.isEmpty else { return .json(webhook.json) }
        let statement = update.statement(table: "_selfdb_webhooks", id: webhook.id, now: Timestamp.now())
        let json = try await services.database.pool.write { db in
            try db.execute(sql: statement.sql, arguments: statement.arguments)
            return try WebhookRecord.load(webhook.id, in: db).json
        }
        return .json(json)
    }

    static func delete(_ request: APIRequest, _ services: EmulatorServices) async throws -> Response {
        let webhook = try await load(request, services, declarations: 2)
        try await services.database.pool.write { db in
            try db.execute(sql: "DELETE FROM _selfdb_webhooks WHERE id = ?", arguments: [webhook.id])
        }
        return .empty(.noContent)
    }

    static func regenerateToken(_ request: APIRequest, _ services: EmulatorServices) async throws -> Response {
        let webhook = try await load(request, services, declarations: 2)
        let json = try await services.database.pool.write { db in
            try db.execute(
                sql: "UPDATE _selfdb_webhooks SET webhook_token = ?, updated_at = ? WHERE id = ?",
                arguments: [WebhookRecord.newToken(), Timestamp.now(), webhook.id]
            )
            return try WebhookRecord.load(webhook.id, in: db).json
        }
        return .json(json)
    }

    static func deliveries(_ request: APIRequest, _ services: EmulatorServices) async throws -> Response {
        try request.query.rejectUnknown(allowed: ["limit", "offset"])
        var query = request.query
        let page = PageQuery.read(&query, defaultLimit: 20, maximumLimit: 100)
        let webhook = try await load(request, services, declarations: 2, then: query.issues)
        try query.validate()
        let (items, total) = try await services.database.pool.read { db in
            try page.items(of: "_selfdb_webhook_deliveries", filter: "WHERE webhook_id = ?", arguments: [webhook.id], order: "ORDER BY created_at DESC, rowid DESC", in: db) {
                WebhookDeliveryRecord(row: $0).json
            }
        }
        return .json(page.envelope("deliveries", items: items, total: total))
    }

    /// The webhook the path names, checked in SelfDB's order: a malformed id is refused only
    /// after the admin check, repeated once per declaration, before the endpoint's own issues;
    /// a well-formed one that names no webhook is 404 before the admin check.
    private static func load(
        _ request: APIRequest,
        _ services: EmulatorServices,
        declarations: Int,
        then issues: [ValidationIssue] = []
    ) async throws -> WebhookRecord {
        switch request.uuidParameter("webhook_id") {
        case .failure(let issue):
            _ = try await AdminOnly.webhooks.require(request, services)
            throw APIError.validation(Array(repeating: issue, count: declarations) + issues)
        case .success(let id):
            let webhook = try await services.database.pool.read { db in try WebhookRecord.load(id, in: db) }
            _ = try await AdminOnly.webhooks.require(request, services)
            return webhook
        }
    }

}

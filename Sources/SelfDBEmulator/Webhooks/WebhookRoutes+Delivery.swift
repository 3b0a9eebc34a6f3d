import EmulatorSupport
import GRDB
import Hummingbird

/// A webhook's public URL, and retrying what it received.
extension WebhookRoutes {
    /// `POST /webhooks/trigger/{token}`: no API key and no user, the token is the credential.
    ///
    /// The delivery is recorded first, then handed to the function. The emulator runs no
    /// function (``FunctionRuntime``), so the delivery ends `failed` and the caller gets 500
    /// with the reason, as from a SelfDB whose Deno service is down.
    static func trigger(_ request: APIRequest, _ services: EmulatorServices) async throws -> Response {
        let token = request.parameter("webhook_token")
        guard !token.isEmpty, token.utf8.count <= 255,
            token.unicodeScalars.allSatisfy({ $0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0) || $0 == "-" || $0 == "_") })
        else {
            throw APIError.notFound("Webhook not found or inactive")
        }
        // Starlette's `request.json()`, failures read as `{}`; any JSON value is kept as sent.
        let payload = (try? JSONParser.parse(request.body)) ?? .object(JSONObject())
        let now = Timestamp.now()
        let (deliveryID, functionName) = try await services.database.pool.write { db -> (String, String?) in
            guard
                let row = try Row.fetchOne(
                    db,
                    sql: "SELECT * FROM _selfdb_webhooks WHERE webhook_token = ? AND is_active = 1",
                    arguments: [token]
                )
            else { throw APIError.notFound("Webhook not found or inactive") }
            let webhook = WebhookRecord(row: row)
            // SelfDB stores JSON that is not an object, then cannot list the deliveries or retry
            // this one (500: a delivery's body must be an object); the emulator refuses it here.
            guard payload.objectValue != nil else {
                throw APIError.badRequest(
                    "the SelfDB emulator records a webhook body only when it is a JSON object (SelfDB v0.0.5 stores a \(payload.pythonTypeName), then answers 500 when the deliveries are listed)"
                )
            }
            let id = UUIDText.random()
            try db.execute(
                sql: """
                    INSERT INTO _selfdb_webhook_deliveries (id, webhook_id, function_id, request_body, status, delivery_attempt,
                        created_at, received_at, updated_at)
                    VALUES (?, ?, ?, ?, 'received', 1, ?, ?, ?)
                    """,
                arguments: [id, webhook.id, webhook.functionID, StoredJSON.encode(payload), now, now, now]
            )
            return (id, try FunctionRecord.find(id: webhook.functionID, in: db)?.name)
        }
        guard let functionName else {
            return .json(
                .object(
                    JSONObject([
                        ("accepted", .bool(true)), ("delivery_id", .string(deliveryID)),
                        ("message", .string("Webhook received but no function configured")),
                    ])
                ),
                status: .accepted
            )
        }
        // The function is there (`functionName`), but nothing can run it.
        try await markFailed(deliveryID, reason: FunctionRuntime.unavailable, services)
        throw APIError(status: .internalServerError, detail: "Failed to invoke function: \(FunctionRuntime.unavailable)")
    }

    /// `POST /webhooks/deliveries/{id}/retry`: counts an attempt and hands the delivery to its
    /// function again; answers the delivery as it now stands (200 even when the run failed).
    static func retry(_ request: APIRequest, _ services: EmulatorServices) async throws -> Response {
        _ = try await AdminOnly.webhooks.require(request, services)
        let id = try request.requireUUIDParameter("delivery_id")
        let hasFunction = try await services.database.pool.write { db -> Bool in
            guard let delivery = try WebhookDeliveryRecord.find(id: id, in: db) else { throw APIError.notFound("Delivery not found") }
            let webhook = try WebhookRecord.load(delivery.webhookID, in: db)
            try db.execute(
                sql: """
                    UPDATE _selfdb_webhook_deliveries SET retry_count = retry_count + 1, delivery_attempt = delivery_attempt + 1,
                        updated_at = ? WHERE id = ?
                    """,
                arguments: [Timestamp.now(), id]
            )
            return try FunctionRecord.find(id: webhook.functionID, in: db) != nil
        }
        if hasFunction {
            try await markFailed(id, reason: FunctionRuntime.unavailable, services)
        }
        let json = try await services.database.pool.read { db in
            guard let delivery = try WebhookDeliveryRecord.find(id: id, in: db) else { throw APIError.notFound("Delivery not found") }
            return delivery.json
        }
        return .json(json)
    }

    private static func markFailed(_ deliveryID: String, reason: String, _ services: EmulatorServices) async throws {
        try await services.database.pool.write { db in
            try db.execute(
                sql: "UPDATE _selfdb_webhook_deliveries SET status = 'failed', error_message = ?, updated_at = ? WHERE id = ?",
                arguments: [reason, Timestamp.now(), deliveryID]
            )
        }
    }
}

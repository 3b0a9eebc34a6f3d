import EmulatorSupport
import Foundation
import GRDB

/// A row of `_selfdb_webhooks`, answered as SelfDB's `WebhookRead`.
struct WebhookRecord: Sendable {
    let id: String
    let functionID: String
    /// `WebhookRead`, fields in pydantic's order (the base model's first). SelfDB v0.0.5 never
    /// updates the delivery counters, so neither does the emulator.
    let json: JSONValue

    init(row: Row) {
        id = row["id"]
        functionID = row["function_id"]
        json = .object(
            JSONObject([
                ("name", .string(row["name"])),
                ("description", .optional(row["description"])),
                ("provider", .optional(row["provider"])),
                ("provider_event_type", .optional(row["provider_event_type"])),
                ("rate_limit_per_minute", .int(row["rate_limit_per_minute"])),
                ("retry_attempts", .int(row["retry_attempts"])),
                ("retry_delay_seconds", .int(row["retry_delay_seconds"])),
                ("id", .string(row["id"])),
                ("function_id", .string(row["function_id"])),
                ("owner_id", .string(row["owner_id"])),
                ("webhook_token", .string(row["webhook_token"])),
                ("secret_key", .string(row["secret_key"])),
                ("is_active", .bool(row["is_active"])),
                ("retry_enabled", .bool(row["retry_enabled"])),
                ("last_received_at", .null),
                ("last_delivery_status", .null),
                ("successful_delivery_count", .int(0)),
                ("failed_delivery_count", .int(0)),
                ("total_delivery_count", .int(0)),
                ("created_at", .string(row["created_at"])),
                ("updated_at", .string(row["updated_at"])),
            ])
        )
    }

    static func find(id: String, in db: Database) throws -> WebhookRecord? {
        try Row.fetchOne(db, sql: "SELECT * FROM _selfdb_webhooks WHERE id = ?", arguments: [id]).map(WebhookRecord.init)
    }

    static func load(_ id: String, in db: Database) throws -> WebhookRecord {
        guard let webhook = try find(id: id, in: db) else { throw APIError.notFound("Webhook not found") }
        return webhook
    }

    /// A new token as `secrets.token_urlsafe(32)` makes one: 32 random bytes, base64url.
    static func newToken() -> String {
        var generator = SystemRandomNumberGenerator()
        return Base64URL.encode((0..<32).map { _ in UInt8.random(in: .min ... .max, using: &generator) })
    }
}

/// A row of `_selfdb_webhook_deliveries`, answered as SelfDB's `WebhookDeliveryRead`.
struct WebhookDeliveryRecord: Sendable {
    let id: String
    let webhookID: String
    let json: JSONValue

    init(row: Row) {
        id = row["id"]
        webhookID = row["webhook_id"]
        json = .object(
            JSONObject([
                ("id", .string(row["id"])),
                ("webhook_id", .string(row["webhook_id"])),
                ("function_id", .string(row["function_id"])),
                ("source_ip", .null),
                ("request_headers", .null),
                ("request_body", StoredJSON.decode(row["request_body"]) ?? .null),
                ("signature_valid", .null),
                ("status", .string(row["status"])),
                ("delivery_attempt", .int(row["delivery_attempt"])),
                ("processing_started_at", .null),
                ("function_execution_id", .null),
                ("execution_result", StoredJSON.decode(row["execution_result"]) ?? .null),
                ("error_message", .optional(row["error_message"])),
                ("execution_time_ms", .null),
                ("response_status_code", (row["response_status_code"] as Int64?).map(JSONValue.int) ?? .null),
                ("retry_count", .int(row["retry_count"])),
                ("next_retry_at", .null),
                ("created_at", .string(row["created_at"])),
                ("received_at", .optional(row["received_at"])),
                ("processing_completed_at", .optional(row["processing_completed_at"])),
                ("updated_at", .string(row["updated_at"])),
            ])
        )
    }

    static func find(id: String, in db: Database) throws -> WebhookDeliveryRecord? {
        try Row.fetchOne(db, sql: "SELECT * FROM _selfdb_webhook_deliveries WHERE id = ?", arguments: [id]).map(WebhookDeliveryRecord.init)
    }
}

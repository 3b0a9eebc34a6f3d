import Foundation
import SelfDB
import SelfDBRuntime
import Testing

/// `webhooks.*` through the generated client: the admin's records, the public trigger (no API
/// key, no user), deliveries and retries, and the refusals.
@Suite("webhooks through the generated client")
struct WebhooksClientTests {
    @Test func adminsManageWebhooks() async throws {
        try await ClientFixture.run { fixture in
            let admin = try await fixture.admin()
            let function = try await admin.functions.create(payload: FunctionCreate(name: "on-payment", code: "export default 1"))
            await expectError(
                "400 with PostgreSQL's words for an unknown function",
                { error in
                    if case .badRequest(let detail) = error { detail.contains("violates foreign key constraint \"webhooks_function_id_fkey\"") } else { false }
                }
            ) {
                _ = try await admin.webhooks.create(payload: WebhookCreate(functionId: UUID(), name: "w", secretKey: "s"))
            }
            let webhook = try await admin.webhooks.create(
                payload: WebhookCreate(functionId: function.id, name: "stripe", secretKey: "whsec", provider: "stripe", retryDelaySeconds: 5)
            )
            #expect(webhook.functionId == function.id && webhook.provider == "stripe" && webhook.isActive && webhook.retryEnabled)
            #expect(webhook.retryDelaySeconds == 60, "SelfDB v0.0.5 checks retry_delay_seconds at creation but stores its default")
            #expect(webhook.webhookToken.count == 43, "secrets.token_urlsafe(32)")
            _ = try await admin.webhooks.create(payload: WebhookCreate(functionId: function.id, name: "stripe", secretKey: "s"))
            #expect(try await admin.webhooks.list().total == 2, "names need not be unique")

            let updated = try await admin.webhooks.update(webhook.id, payload: WebhookUpdate(description: "d", retryDelaySeconds: 7))
            #expect(updated.description == "d" && updated.retryDelaySeconds == 7)
            let renewed = try await admin.webhooks.regenerateToken(webhook.id)
            #expect(renewed.webhookToken != webhook.webhookToken)
            #expect(try await admin.webhooks.get(webhook.id).webhookToken == renewed.webhookToken)

            try await admin.webhooks.delete(webhook.id)
            await expectError("404 once deleted", { if case .notFound(let detail) = $0 { detail == "Webhook not found" } else { false } }) {
                _ = try await admin.webhooks.get(webhook.id)
            }
            try await admin.functions.delete(function.id)
            #expect(try await admin.webhooks.list().total == 0, "a function's webhooks go with it")
        }
    }

    @Test func theTriggerIsPublicAndRecordsEachDelivery() async throws {
        try await ClientFixture.run { fixture in
            let admin = try await fixture.admin()
            let function = try await admin.functions.create(payload: FunctionCreate(name: "hook", code: "export default 1"))
            let webhook = try await admin.webhooks.create(payload: WebhookCreate(functionId: function.id, name: "w", secretKey: "s"))
            // No API key at all, as a provider calls it.
            let provider = fixture.client(apiKey: "not-the-key")
            await expectError(
                "500: the emulator runs no function, and says so",
                { error in
                    if case .internalServerError(let detail) = error { detail.hasPrefix("Failed to invoke function: the SelfDB emulator runs no Deno runtime") } else { false }
                }
            ) {
                _ = try await provider.webhooks.trigger(webhook.webhookToken, payload: ["amount": 5])
            }
            await expectError("404 for an unknown token", { if case .notFound(let detail) = $0 { detail == "Webhook not found or inactive" } else { false } }) {
                _ = try await provider.webhooks.trigger("no-such-token", payload: [:])
            }
            await expectError("400 for JSON that is not an object, which SelfDB could not list", { if case .badRequest = $0 { true } else { false } }) {
                _ = try await provider.webhooks.trigger(webhook.webhookToken, payload: [1, 2])
            }
            let deliveries = try await admin.webhooks.deliveries(webhook.id)
            #expect(deliveries.total == 1)
            let delivery = try #require(deliveries.deliveries.first)
            #expect(delivery.requestBody == ["amount": 5] && delivery.status == "failed" && delivery.deliveryAttempt == 1)
            #expect(delivery.errorMessage?.contains("runs no Deno runtime") == true && delivery.receivedAt != nil)

            let retried = try await admin.webhooks.retryDelivery(delivery.id)
            #expect(retried.id == delivery.id && retried.deliveryAttempt == 2 && retried.retryCount == 1 && retried.status == "failed")
            await expectError("404 for an unknown delivery", { if case .notFound(let detail) = $0 { detail == "Delivery not found" } else { false } }) {
                _ = try await admin.webhooks.retryDelivery(UUID())
            }

            _ = try await admin.webhooks.update(webhook.id, payload: WebhookUpdate(isActive: false))
            await expectError("404 once inactive", { if case .notFound = $0 { true } else { false } }) {
                _ = try await provider.webhooks.trigger(webhook.webhookToken, payload: [:])
            }
            #expect(try await admin.webhooks.deliveries(webhook.id).total == 1, "an inactive webhook records nothing")
        }
    }

    @Test func othersAreRefused() async throws {
        try await ClientFixture.run { fixture in
            let admin = try await fixture.admin()
            let function = try await admin.functions.create(payload: FunctionCreate(name: "f", code: "export default 1"))
            let webhook = try await admin.webhooks.create(payload: WebhookCreate(functionId: function.id, name: "w", secretKey: "s"))
            let (user, _) = try await fixture.newUser()
            let forbidden = { (error: SelfDBError) -> Bool in
                if case .permissionDenied(let detail) = error { detail == "Admin access required for webhook management" } else { false }
            }
            await expectError("401 without a user", { if case .authenticationError = $0 { true } else { false } }) {
                _ = try await fixture.client().webhooks.list()
            }
            await expectError("403 to list", forbidden) { _ = try await user.webhooks.list() }
            await expectError("403 to read", forbidden) { _ = try await user.webhooks.get(webhook.id) }
            await expectError("403 to create", forbidden) {
                _ = try await user.webhooks.create(payload: WebhookCreate(functionId: function.id, name: "x", secretKey: "s"))
            }
            await expectError("403 to change", forbidden) { _ = try await user.webhooks.update(webhook.id, payload: WebhookUpdate(isActive: false)) }
            await expectError("403 for a new token", forbidden) { _ = try await user.webhooks.regenerateToken(webhook.id) }
            await expectError("403 to delete", forbidden) { try await user.webhooks.delete(webhook.id) }
            await expectError("403 for deliveries", forbidden) { _ = try await user.webhooks.deliveries(webhook.id) }
            await expectError("403 to retry", forbidden) { _ = try await user.webhooks.retryDelivery(UUID()) }
            let unchanged = try await admin.webhooks.get(webhook.id)
            #expect(unchanged.isActive && unchanged.webhookToken == webhook.webhookToken)
        }
    }
}

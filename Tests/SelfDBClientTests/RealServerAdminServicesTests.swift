import Foundation
import SelfDB
import SelfDBRuntime
import Testing

/// The admin services through the generated client against a real SelfDB
/// (`../shared/kits/real-selfdb`): runs only when `SELFDB_REAL_URL` is set
/// (`SELFDB_REAL_API_KEY`, `SELFDB_REAL_EMAIL`, `SELFDB_REAL_PASSWORD` default to the kit's).
/// Every answer must decode into the generated types; what the kit's server cannot do (it has
/// no Deno service, and its backups folder is not writable) is checked as it fails there.
/// It makes and deletes its own function, webhook and snippet; it never makes a backup.
@Suite("admin services against a real SelfDB", .enabled(if: ProcessInfo.processInfo.environment["SELFDB_REAL_URL"] != nil))
struct RealServerAdminServicesTests {
    /// A signed-out client of the real server.
    static func client() throws -> SelfDB {
        let environment = ProcessInfo.processInfo.environment
        let url = try #require(URL(string: environment["SELFDB_REAL_URL"] ?? ""))
        return SelfDB(baseURL: url, apiKey: environment["SELFDB_REAL_API_KEY"] ?? "test-api-key")
    }

    static func admin() async throws -> SelfDB {
        let environment = ProcessInfo.processInfo.environment
        let selfdb = try client()
        try await selfdb.auth.login(email: environment["SELFDB_REAL_EMAIL"] ?? "admin@example.com", password: environment["SELFDB_REAL_PASSWORD"] ?? "Admin123!")
        return selfdb
    }

    @Test func functionsAndWebhooks() async throws {
        let admin = try await Self.admin()
        let name = "probe-\(UUID().uuidString.prefix(8).lowercased())"
        let function = try await admin.functions.create(payload: FunctionCreate(name: name, code: "export default 1", envVars: ["A": "1"]))
        do {
            #expect(try await admin.functions.get(function.id).name == name)
            let listed = try await admin.functions.list(search: name)
            let counted = try await admin.functions.count(search: name)
            #expect(listed.total == 1 && counted == 1)
            #expect(try await admin.functions.update(function.id, payload: FunctionUpdate(code: "export default 2")).version == 2)
            #expect(try await admin.functions.setEnvironment(function.id, payload: FunctionEnvVarsUpdate(envVars: ["B": "2"])).envVars == ["B": "2"])
            #expect(try await admin.functions.deploy(function.id).deploymentStatus == "failed", "the kit runs no Deno service")
            let run = try await admin.functions.reportExecution(name, payload: ExecutionResultRequest(success: true, logs: ["[LOG] a"], executionTimeMs: 5))
            #expect(run.executionId != nil)
            let runs = try await admin.functions.executions(function.id)
            let logs = try await admin.functions.logs(function.id)
            #expect(runs.total == 1 && logs.total == 1)

            let webhook = try await admin.webhooks.create(payload: WebhookCreate(functionId: function.id, name: name, secretKey: "s"))
            #expect(try await admin.webhooks.get(webhook.id).name == name)
            #expect(try await admin.webhooks.update(webhook.id, payload: WebhookUpdate(retryDelaySeconds: 7)).retryDelaySeconds == 7)
            let token = try await admin.webhooks.regenerateToken(webhook.id).webhookToken
            await expectError("500 without a Deno service", { if case .internalServerError = $0 { true } else { false } }) {
                _ = try await admin.webhooks.trigger(token, payload: ["n": 1])
            }
            let delivery = try #require(try await admin.webhooks.deliveries(webhook.id).deliveries.first)
            #expect(delivery.requestBody == ["n": 1] && delivery.status == "failed")
            #expect(try await admin.webhooks.retryDelivery(delivery.id).deliveryAttempt == 2)
            try await admin.webhooks.delete(webhook.id)
        } catch {
            try? await admin.functions.delete(function.id)
            throw error
        }
        try await admin.functions.delete(function.id)
    }

    @Test func sqlAndBackups() async throws {
        let admin = try await Self.admin()
        let result = try await admin.sql.query(query: "select 1 as one, 'a' as two")
        #expect(result.isReadOnly && result.data == [["one": 1, "two": "a"]])
        #expect(try await admin.sql.history(limit: 1).history.first?.query == "select 1 as one, 'a' as two")
        let snippet = try await admin.sql.snippets.create(payload: SqlSnippetCreate(name: "probe", sqlCode: "select 1"))
        #expect(try await admin.sql.snippets.list().snippets.contains { $0.id == snippet.id })
        try await admin.sql.snippets.delete(snippet.id)
        _ = try await admin.backups.list()
        await expectError("404 for an archive it does not hold", { if case .notFound = $0 { true } else { false } }) {
            _ = try await admin.backups.download("selfdb_backup_20000101_000000.tar.gz")
        }
        let anonymous = try Self.client()
        await expectError("403 after the first sign-in", { if case .permissionDenied = $0 { true } else { false } }) {
            _ = try await anonymous.backups.restore(archive: Data([1]))
        }
        // The streamed variants meet the same answers.
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("real-backups-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let missing = folder.appendingPathComponent("missing.tar.gz")
        await expectError("404 to a file", { if case .notFound = $0 { true } else { false } }) {
            _ = try await admin.backups.download("selfdb_backup_20000101_000000.tar.gz", to: missing)
        }
        let archive = folder.appendingPathComponent("archive.tar.gz")
        try Data([1]).write(to: archive)
        await expectError("403 for an archive file", { if case .permissionDenied = $0 { true } else { false } }) {
            _ = try await anonymous.backups.restore(fileURL: archive)
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path) == ["archive.tar.gz"], "no partial file left")
    }
}

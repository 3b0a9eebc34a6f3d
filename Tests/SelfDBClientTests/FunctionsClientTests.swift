import Foundation
import SelfDB
import SelfDBRuntime
import Testing

/// `functions.*` through the generated client: SelfDB's records and counters, the runtime's
/// callback, the emulator's documented refusal to run Deno, and the admin-only refusals in the
/// order the real server checks them.
@Suite("functions through the generated client")
struct FunctionsClientTests {
    static let code = "export default async (req) => new Response('hi')"

    @Test func adminsManageFunctionsAsOnSelfDB() async throws {
        try await ClientFixture.run { fixture in
            let admin = try await fixture.admin()
            let me = try await admin.auth.me()
            let created = try await admin.functions.create(payload: FunctionCreate(name: "hello-world", code: Self.code, envVars: ["A": "1"]))
            #expect(created.name == "hello-world" && created.ownerId == me.id && created.isActive)
            #expect(created.deploymentStatus == "pending" && created.version == 1 && created.timeoutSeconds == 30)
            #expect(created.envVars == ["A": "1"] && created.executionCount == 0 && created.avgExecutionTimeMs == nil)
            _ = try await admin.functions.create(payload: FunctionCreate(name: "other", code: Self.code, description: "the hello twin"))

            await expectError("409 for a taken name", { if case .conflict(let detail) = $0 { detail == "Function with name 'hello-world' already exists" } else { false } }) {
                _ = try await admin.functions.create(payload: FunctionCreate(name: "hello-world", code: Self.code))
            }
            #expect(try await admin.functions.count() == 2)
            #expect(try await admin.functions.count(search: "twin") == 1)
            #expect(try await admin.functions.count(search: "hello_world") == 1, "SelfDB's ILIKE: '_' is a wildcard")
            let page = try await admin.functions.list(limit: 1, sortBy: .name, sortOrder: .asc)
            #expect(page.total == 2 && page.limit == 1 && page.offset == 0 && page.functions.map(\.name) == ["hello-world"])

            let updated = try await admin.functions.update(created.id, payload: FunctionUpdate(code: "export default 1", isActive: false))
            #expect(updated.version == 2 && updated.deploymentStatus == "pending" && !updated.isActive)
            let renamed = try await admin.functions.update(created.id, payload: FunctionUpdate(name: "hello-again"))
            #expect(renamed.name == "hello-again" && renamed.version == 2, "only new code bumps the version")
            await expectError("409 when renaming onto a taken name", { if case .conflict = $0 { true } else { false } }) {
                _ = try await admin.functions.update(created.id, payload: FunctionUpdate(name: "other"))
            }
            let environment = try await admin.functions.setEnvironment(created.id, payload: FunctionEnvVarsUpdate(envVars: ["B": "2"]))
            #expect(environment.envVars == ["B": "2"], "the set is replaced, not merged")

            // The emulator runs no Deno: a deployment fails with a reason that says so.
            let deployed = try await admin.functions.deploy(created.id)
            #expect(deployed.deploymentStatus == "failed")
            #expect(deployed.deploymentError?.contains("SelfDB emulator runs no Deno runtime") == true)

            try await admin.functions.delete(created.id)
            await expectError("404 once deleted", { if case .notFound(let detail) = $0 { detail == "Function not found" } else { false } }) {
                _ = try await admin.functions.get(created.id)
            }
        }
    }

    @Test func theRuntimeCallbackRecordsRunsLogsAndCounters() async throws {
        try await ClientFixture.run { fixture in
            let admin = try await fixture.admin()
            let function = try await admin.functions.create(payload: FunctionCreate(name: "worker", code: Self.code))
            // The callback needs only the API key, as on SelfDB.
            let runtime = fixture.client()
            let unknown = try await runtime.functions.reportExecution("nobody", payload: ExecutionResultRequest(success: true))
            #expect(unknown.received && unknown.warning == "Function not found" && unknown.executionId == nil)

            let failed = try await runtime.functions.reportExecution(
                "worker",
                payload: ExecutionResultRequest(success: false, result: ["m": 1], logs: ["[LOG] a", "[ERROR] b", "[WARN] c"], executionTimeMs: 12.7)
            )
            let failedID = try #require(failed.executionId)
            _ = try await runtime.functions.reportExecution("worker", payload: ExecutionResultRequest(success: true, executionTimeMs: 30, deliveryId: "d1"))

            _ = try await runtime.functions.reportExecution("worker", payload: ExecutionResultRequest(success: true, executionTimeMs: 1, deliveryId: ""))
            await expectError("400 for a time SelfDB's INTEGER cannot hold", { if case .badRequest(let detail) = $0 { detail.hasSuffix("integer out of range") } else { false } }) {
                _ = try await runtime.functions.reportExecution("worker", payload: ExecutionResultRequest(executionTimeMs: 1e19))
            }
            await expectError("400 for a result SelfDB could not list", { if case .badRequest(let detail) = $0 { detail.contains("only when it is a JSON object") } else { false } }) {
                _ = try await runtime.functions.reportExecution("worker", payload: ExecutionResultRequest(result: [1]))
            }
            let after = try await admin.functions.get(function.id)
            #expect(after.executionCount == 3 && after.executionSuccessCount == 2 && after.executionErrorCount == 1, "refused runs count nothing")
            #expect(after.avgExecutionTimeMs == 14, "SelfDB's running mean: int((12 * 1 + 30) / 2) = 21, then int((21 * 2 + 1) / 3)")
            #expect(after.lastExecutedAt != nil)

            let runs = try await admin.functions.executions(function.id)
            #expect(runs.total == 3 && runs.executions.map(\.triggerType) == ["http", "webhook", "http"], "newest first; an empty delivery id is no webhook")
            let first = try #require(runs.executions.last)
            #expect(first.id == failedID && first.status == "failed" && first.durationMs == 12)
            #expect(first.errorMessage == "{'m': 1}", "Python's str() of the result, as SelfDB writes it")
            #expect(first.result == ["m": 1])

            let errors = try await admin.functions.logs(function.id, level: "error")
            #expect(errors.total == 1 && errors.logs.first?.message == "[ERROR] b" && errors.logs.first?.executionId == failedID)
            #expect(try await admin.functions.logs(function.id).total == 3)
            #expect(try await admin.functions.logs(function.id, limit: 1, offset: 1).logs.count == 1)
        }
    }

    @Test func refusalsComeInTheRealServersOrder() async throws {
        try await ClientFixture.run { fixture in
            let admin = try await fixture.admin()
            let function = try await admin.functions.create(payload: FunctionCreate(name: "guarded", code: Self.code))
            let anonymous = fixture.client()
            let (user, _) = try await fixture.newUser()
            let forbidden = { (error: SelfDBError) -> Bool in
                if case .permissionDenied(let detail) = error { detail == "Admin access required for function management" } else { false }
            }
            await expectError("401 without a user", { if case .authenticationError = $0 { true } else { false } }) {
                _ = try await anonymous.functions.list()
            }
            await expectError("403 for a user", forbidden) { _ = try await user.functions.list() }
            await expectError("403 to read", forbidden) { _ = try await user.functions.get(function.id) }
            await expectError("403 to create", forbidden) { _ = try await user.functions.create(payload: FunctionCreate(name: "x", code: "y")) }
            await expectError("403 to change", forbidden) { _ = try await user.functions.update(function.id, payload: FunctionUpdate(isActive: false)) }
            await expectError("403 to delete", forbidden) { try await user.functions.delete(function.id) }
            await expectError("403 to deploy", forbidden) { _ = try await user.functions.deploy(function.id) }
            await expectError("403 for the runs", forbidden) { _ = try await user.functions.executions(function.id) }
            await expectError("403 for the logs", forbidden) { _ = try await user.functions.logs(function.id) }
            // SelfDB looks the function up before it checks the caller: an unknown id is 404 for anyone.
            await expectError("404 before 403 for an unknown id", { if case .notFound = $0 { true } else { false } }) {
                _ = try await user.functions.get(UUID())
            }
            #expect(try await admin.functions.get(function.id).isActive, "nothing a refused call sent was applied")
        }
    }

    @Test func badBodiesAreRefusedFieldByField() async throws {
        try await ClientFixture.run { fixture in
            let admin = try await fixture.admin()
            await expectError(
                "422 naming each bad field, as pydantic does",
                { error in
                    guard case .validationFailed(let issues) = error else { return false }
                    return issues.map(\.type) == ["string_pattern_mismatch", "value_error", "greater_than_equal"]
                }
            ) {
                _ = try await admin.functions.create(payload: FunctionCreate(name: "1bad", code: "  ", timeoutSeconds: 2))
            }
            #expect(try await admin.functions.count() == 0, "nothing was stored")
        }
    }
}

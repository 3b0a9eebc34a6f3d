import Foundation
import SelfDB
import SelfDBRuntime
import Testing

@Suite("token refresh and retries against the emulator")
struct SessionRefreshTests {
    static let refreshPath = "/users/token/refresh"

    @Test func fiftyConcurrentRequestsWithAnExpiredTokenRefreshOnce() async throws {
        try await ClientFixture.run(accessTokenLifetime: 1) { fixture in
            let selfdb = try await fixture.admin()
            let before = try #require(await selfdb.session)
            try await Task.sleep(for: .milliseconds(2_200))
            fixture.emulator.accessTokenLifetime = 1800
            let emails = try await withThrowingTaskGroup(of: String.self) { group in
                for _ in 0..<50 { group.addTask { try await selfdb.auth.me().email } }
                return try await group.reduce(into: [String]()) { $0.append($1) }
            }
            #expect(emails.count == 50)
            #expect(Set(emails) == [ClientFixture.adminEmail])
            #expect(fixture.emulator.requestCount(method: "POST", path: Self.refreshPath) == 1)
            let after = try #require(await selfdb.session)
            #expect(after.refreshToken != before.refreshToken, "the rotated refresh token is kept")
        }
    }

    @Test func a401WithUnknownExpiryAlsoRefreshesOnceAndRetries() async throws {
        try await ClientFixture.run(accessTokenLifetime: 1) { fixture in
            let signedIn = try await fixture.admin()
            let stale = try #require(await signedIn.session)
            try await Task.sleep(for: .milliseconds(2_200))
            fixture.emulator.accessTokenLifetime = 1800
            // No known expiry: the client only learns from the server's 401.
            let store = InMemoryTokenStore(StoredSession(accessToken: stale.accessToken, refreshToken: stale.refreshToken, expiresAt: nil))
            let selfdb = fixture.client(tokenStore: store)
            async let one = selfdb.auth.me()
            async let two = selfdb.auth.users.list(limit: 5)
            async let three = selfdb.auth.count()
            _ = try await (one, two, three)
            #expect(fixture.emulator.requestCount(method: "POST", path: Self.refreshPath) == 1)
            #expect(fixture.requests("GET", pathPrefix: "/users/me") == 2, "the refused request is sent again once")
        }
    }

    @Test func aReusedRefreshTokenSignsOutCleanly() async throws {
        try await ClientFixture.run(accessTokenLifetime: 1) { fixture in
            let selfdb = try await fixture.admin()
            let original = try #require(await selfdb.session)
            // Someone else rotates the refresh token first (another device with a copy of it).
            let other = fixture.client()
            _ = try await other.auth.refresh(refreshToken: try #require(original.refreshToken))
            try await Task.sleep(for: .milliseconds(2_200))
            await expectError("authenticationError after the refresh is refused", { if case .authenticationError(let detail) = $0 { detail.contains("sign in again") } else { false } }) {
                _ = try await selfdb.auth.me()
            }
            #expect(await selfdb.session == nil, "a refused refresh signs out")
            // A reuse after the rotation costs only that session (SelfDB revokes every session
            // only when the reuse races the rotation): the other device keeps its own.
            let rotated = try #require(await other.session?.refreshToken)
            _ = try await fixture.client().auth.refresh(refreshToken: rotated)
        }
    }

    @Test func idempotentRequestsRetryOn503WithRetryAfter() async throws {
        try await ClientFixture.run { fixture in
            let selfdb = SelfDB(baseURL: fixture.emulator.baseURL, apiKey: ClientFixture.apiKey, retryPolicy: RetryPolicy(maxAttempts: 3, baseDelay: 0.01))
            try await selfdb.auth.login(email: ClientFixture.adminEmail, password: ClientFixture.adminPassword)
            fixture.emulator.injectFault(.serviceUnavailable(retryAfter: 1), method: "GET", path: "/users/me", count: 2)
            let started = ContinuousClock.now
            #expect(try await selfdb.auth.me().email == ClientFixture.adminEmail)
            #expect(fixture.requests("GET", pathPrefix: "/users/me") == 3)
            #expect(ContinuousClock.now - started >= .seconds(2), "Retry-After is honoured")

            fixture.emulator.injectFault(.tooManyRequests(retryAfter: 0), method: "GET", path: "/tables/", count: 1)
            _ = try await selfdb.tables.list()
            #expect(fixture.requests("GET", pathPrefix: "/tables/") == 2)
        }
    }

    @Test func aPostIsNeverRetried() async throws {
        try await ClientFixture.run { fixture in
            let selfdb = SelfDB(baseURL: fixture.emulator.baseURL, apiKey: ClientFixture.apiKey, retryPolicy: RetryPolicy(maxAttempts: 5, baseDelay: 0.01))
            try await selfdb.auth.login(email: ClientFixture.adminEmail, password: ClientFixture.adminPassword)
            fixture.emulator.injectFault(.serviceUnavailable(retryAfter: 0), method: "POST", path: "/tables/", count: 1)
            await expectError("503 surfaced, not retried", { if case .serviceUnavailable = $0 { true } else { false } }) {
                try await selfdb.tables.create(payload: TableCreate(name: "once", tableSchema: ["title": ColumnSchema(type: "text")]))
            }
            #expect(fixture.requests("POST", pathPrefix: "/tables/") == 1)
            #expect(try await selfdb.tables.count(search: "once") == 0)
        }
    }

    @Test func connectionFailuresAreTypedAndPersistentSessionsSurviveAClientRestart() async throws {
        let unreachable = SelfDB(baseURL: try #require(URL(string: "http://127.0.0.1:9")), apiKey: "k", retryPolicy: .none)
        await expectError("connectionError", { if case .connectionError = $0 { true } else { false } }) {
            _ = try await unreachable.tables.count()
        }
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("selfdb-session-\(UUID().uuidString).json")
        defer { try? FileManager.default.removeItem(at: file) }
        try await ClientFixture.run { fixture in
            let first = fixture.client(tokenStore: FileTokenStore(url: file))
            try await first.auth.login(email: ClientFixture.adminEmail, password: ClientFixture.adminPassword)
            let permissions = try FileManager.default.attributesOfItem(atPath: file.path)[.posixPermissions] as? Int
            #expect(permissions == 0o600)
            let relaunched = fixture.client(tokenStore: FileTokenStore(url: file))
            #expect(try await relaunched.auth.me().email == ClientFixture.adminEmail)
        }
    }
}

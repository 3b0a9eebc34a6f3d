import Foundation
import SelfDB
import SelfDBEmulator
import Testing

/// An emulator on a loopback port with a temporary data directory, and clients for it.
struct ClientFixture: Sendable {
    static let apiKey = "client-test-key"
    static let adminEmail = "admin@example.com"
    static let adminPassword = "Admin123!"

    let emulator: SelfDBEmulator

    /// Runs `body` against a fresh emulator, stopping it afterwards whatever happens.
    static func run(accessTokenLifetime: TimeInterval = 1800, _ body: (ClientFixture) async throws -> Void) async throws {
        let emulator = try await SelfDBEmulator.start(
            .init(
                apiKey: apiKey,
                admin: .init(email: adminEmail, password: adminPassword),
                port: 0,
                accessTokenLifetime: accessTokenLifetime,
                passwordHashIterations: 1_000
            )
        )
        do {
            try await body(ClientFixture(emulator: emulator))
        } catch {
            await emulator.stop()
            throw error
        }
        await emulator.stop()
    }

    /// A signed-out client.
    func client(apiKey: String = ClientFixture.apiKey, retry: RetryPolicy = .none, tokenStore: any TokenStore = InMemoryTokenStore()) -> SelfDB {
        SelfDB(baseURL: emulator.baseURL, apiKey: apiKey, tokenStore: tokenStore, retryPolicy: retry)
    }

    /// A client signed in as the admin.
    func admin() async throws -> SelfDB {
        let selfdb = client()
        try await selfdb.auth.login(email: Self.adminEmail, password: Self.adminPassword)
        return selfdb
    }

    /// A new regular user, signed in.
    func newUser(_ name: String = "user") async throws -> (SelfDB, UserRead) {
        let selfdb = client()
        let email = "\(name)-\(UUID().uuidString.prefix(8).lowercased())@example.com"
        let user = try await selfdb.auth.users.create(payload: UserCreate(email: email, password: "Password123", firstName: "Test", lastName: name))
        try await selfdb.auth.login(email: email, password: "Password123")
        return (selfdb, user)
    }

    /// Requests the emulator received for `method` on paths starting with `prefix`.
    func requests(_ method: String, pathPrefix prefix: String) -> Int {
        emulator.recordedRequests().filter { $0.method == method && $0.path.hasPrefix(prefix) }.count
    }
}

/// Expects `operation` to throw a `SelfDBError` that `matches` accepts.
func expectError(
    _ what: String,
    _ matches: (SelfDBError) -> Bool,
    sourceLocation: SourceLocation = #_sourceLocation,
    _ operation: () async throws -> Void
) async {
    do {
        try await operation()
        Issue.record("expected \(what), but the call succeeded", sourceLocation: sourceLocation)
    } catch let error as SelfDBError {
        #expect(matches(error), "expected \(what), got \(error)", sourceLocation: sourceLocation)
    } catch {
        Issue.record("expected \(what), got a non-SelfDB error \(error)", sourceLocation: sourceLocation)
    }
}

import Foundation
import SelfDB
import SelfDBEmulator
import SelfDBTestSupport
import Testing

/// The server a flaky-network test runs against: a fresh emulator, or, when `SELFDB_REAL_URL`
/// is set, the real SelfDB it names too (`../shared/kits/real-selfdb`; `SELFDB_REAL_API_KEY`
/// defaults to the kit's key).
public enum Backend: Sendable, CustomTestStringConvertible {
    case emulator
    case real(URL, apiKey: String)

    /// The emulator, and the real server when one is named.
    public static var all: [Backend] {
        let environment = ProcessInfo.processInfo.environment
        guard let text = environment["SELFDB_REAL_URL"], let url = URL(string: text) else { return [.emulator] }
        return [.emulator, .real(url, apiKey: environment["SELFDB_REAL_API_KEY"] ?? "test-api-key")]
    }

    public var testDescription: String {
        switch self {
        case .emulator: "emulator"
        case .real(let url, _): "real SelfDB at \(url.absoluteString)"
        }
    }
}

/// A server behind a ``FaultProxy``: clients that go through the proxy, and clients that read
/// what the server holds directly.
public final class FlakyServer: Sendable {
    /// The emulator's API key, and its admin.
    public static let emulatorAPIKey = "flaky-network-key"
    public static let adminEmail = "admin@example.com"
    public static let adminPassword = "Admin123!"

    /// The proxy clients go through.
    public let proxy: FaultProxy
    /// The server itself.
    public let serverURL: URL
    public let apiKey: String
    /// The emulator, when the backend is one.
    public let emulator: SelfDBEmulator?

    private init(proxy: FaultProxy, serverURL: URL, apiKey: String, emulator: SelfDBEmulator?) {
        self.proxy = proxy
        self.serverURL = serverURL
        self.apiKey = apiKey
        self.emulator = emulator
    }

    /// Starts `backend` (an emulator is started; a real server is used as it is) and a proxy in
    /// front of it, runs `body`, and stops both.
    public static func run(
        _ backend: Backend,
        seed: UInt64 = 46,
        isolation: isolated (any Actor)? = #isolation,
        _ body: (FlakyServer) async throws -> Void
    ) async throws {
        let emulator: SelfDBEmulator?
        let url: URL
        let apiKey: String
        switch backend {
        case .emulator:
            let started = try await SelfDBEmulator.start(
                .init(apiKey: Self.emulatorAPIKey, admin: .init(email: Self.adminEmail, password: Self.adminPassword), port: 0, passwordHashIterations: 1_000)
            )
            (emulator, url, apiKey) = (started, started.baseURL, Self.emulatorAPIKey)
        case .real(let realURL, let realKey):
            (emulator, url, apiKey) = (nil, realURL, realKey)
        }
        let server: FlakyServer
        do {
            server = FlakyServer(proxy: try FaultProxy(upstream: url, seed: seed), serverURL: url, apiKey: apiKey, emulator: emulator)
        } catch {
            await emulator?.stop()
            throw error
        }
        do {
            try await body(server)
        } catch {
            server.proxy.stop()
            await emulator?.stop()
            throw error
        }
        server.proxy.stop()
        await emulator?.stop()
    }

    /// A client whose requests go through the proxy.
    public func client(retry: RetryPolicy = RetryPolicy(baseDelay: 0.05), transport: any HTTPTransport = platformHTTPTransport()) -> SelfDB {
        SelfDB(baseURL: proxy.baseURL, apiKey: apiKey, transport: transport, retryPolicy: retry)
    }

    /// A new user, signed in twice: through the proxy (`flaky`) and straight to the server
    /// (`direct`, to read what the server holds).
    public func newUser(retry: RetryPolicy = RetryPolicy(baseDelay: 0.05), transport: any HTTPTransport = platformHTTPTransport()) async throws -> (flaky: SelfDB, direct: SelfDB, user: UserRead) {
        let direct = SelfDB(baseURL: serverURL, apiKey: apiKey, retryPolicy: .none)
        let email = "flaky-\(UUID().uuidString.prefix(8).lowercased())@example.com"
        let user = try await direct.auth.users.create(payload: UserCreate(email: email, password: "Password123", firstName: "Flaky", lastName: "Network"))
        try await direct.auth.login(email: email, password: "Password123")
        let flaky = client(retry: retry, transport: transport)
        try await flaky.auth.login(email: email, password: "Password123")
        return (flaky, direct, user)
    }

    /// Makes `Row`'s table as the admin, who owns it (on a real server it may exist already,
    /// made by an earlier run: SelfDB then returns it), so every user may write its rows.
    @discardableResult
    public func prepareTable<Row: TableModel>(_ type: Row.Type) async throws -> TableRead {
        let environment = ProcessInfo.processInfo.environment
        let admin = SelfDB(baseURL: serverURL, apiKey: apiKey, retryPolicy: .none)
        try await admin.auth.login(
            email: emulator == nil ? environment["SELFDB_REAL_EMAIL"] ?? Self.adminEmail : Self.adminEmail,
            password: emulator == nil ? environment["SELFDB_REAL_PASSWORD"] ?? Self.adminPassword : Self.adminPassword
        )
        return try await admin.tables.create(from: Row.self)
    }

    /// How many times each of `ids` is among the server's rows of `Row`, read directly.
    public static func occurrences<Row: TableModel>(of ids: Set<UUID>, in type: Row.Type, key: KeyPath<Row, UUID>, reading direct: SelfDB) async throws -> [UUID: Int] {
        var counts: [UUID: Int] = [:]
        var page = 1
        while true {
            let rows = try await direct.tables.data.query(Row.self).page(page).pageSize(1000).executePage()
            for row in rows.rows where ids.contains(row[keyPath: key]) { counts[row[keyPath: key], default: 0] += 1 }
            guard rows.hasNext else { return counts }
            page += 1
        }
    }
}

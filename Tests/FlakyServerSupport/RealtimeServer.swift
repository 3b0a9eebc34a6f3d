import Foundation
import SelfDB
import SelfDBEmulator
import SelfDBTestSupport
import Testing

/// The server a realtime-outage test runs against: a fresh emulator (its realtime service
/// switched off and on with ``SelfDBEmulator/realtimeServiceIsUp``), or, when
/// `SELFDB_REAL_URL`, `SELFDB_REALTIME_STOP` and `SELFDB_REALTIME_START` are set, a real
/// SelfDB whose realtime service those shell commands stop and start
/// (`../shared/kits/real-realtime`'s `RT_KEEP_HOSTS=1 ./stop.sh` and `./start.sh`).
public enum RealtimeBackend: Sendable, CustomTestStringConvertible {
    case emulator
    case real(URL, apiKey: String, stop: String, start: String)

    /// The emulator, and the real server when one is named with its service's commands.
    public static var all: [RealtimeBackend] {
        let environment = ProcessInfo.processInfo.environment
        guard let text = environment["SELFDB_REAL_URL"], let url = URL(string: text),
            let stop = environment["SELFDB_REALTIME_STOP"], let start = environment["SELFDB_REALTIME_START"]
        else { return [.emulator] }
        return [.emulator, .real(url, apiKey: environment["SELFDB_REAL_API_KEY"] ?? "test-api-key", stop: stop, start: start)]
    }

    public var testDescription: String {
        switch self {
        case .emulator: "emulator"
        case .real(let url, _, _, _): "real SelfDB at \(url.absoluteString)"
        }
    }
}

/// A server whose realtime service a test can take down and bring back while its REST API
/// carries on, with signed-in users.
public final class RealtimeServer: Sendable {
    public let baseURL: URL
    public let apiKey: String
    /// The emulator, when the backend is one (for its counters).
    public let emulator: SelfDBEmulator?
    private let commands: (stop: String, start: String)?

    private init(baseURL: URL, apiKey: String, emulator: SelfDBEmulator?, commands: (stop: String, start: String)?) {
        self.baseURL = baseURL
        self.apiKey = apiKey
        self.emulator = emulator
        self.commands = commands
    }

    /// Starts `backend` (an emulator is started; a real server is used as it is), runs `body`,
    /// and stops the emulator, or makes sure the real realtime service runs again.
    public static func run(_ backend: RealtimeBackend, isolation: isolated (any Actor)? = #isolation, _ body: (RealtimeServer) async throws -> Void) async throws {
        let server: RealtimeServer
        switch backend {
        case .emulator:
            let emulator = try await SelfDBEmulator.start(
                .init(apiKey: FlakyServer.emulatorAPIKey, admin: .init(email: FlakyServer.adminEmail, password: FlakyServer.adminPassword), port: 0, passwordHashIterations: 1_000)
            )
            server = RealtimeServer(baseURL: emulator.baseURL, apiKey: FlakyServer.emulatorAPIKey, emulator: emulator, commands: nil)
        case .real(let url, let apiKey, let stop, let start):
            server = RealtimeServer(baseURL: url, apiKey: apiKey, emulator: nil, commands: (stop, start))
        }
        do {
            try await body(server)
        } catch {
            await server.finish()
            throw error
        }
        await server.finish()
    }

    private func finish() async {
        if let emulator {
            await emulator.stop()
        } else {
            try? await setServiceUp(true)
        }
    }

    /// Takes the realtime service down (`false`: new sockets are closed once upgraded) or
    /// brings it back. On a real SelfDB an open socket stays open and silent until the
    /// client's heartbeat finds it dead; on the emulator the open sockets are dropped as well
    /// (a network cut at the same moment), so a scaled-down outage starts at once; the silent
    /// socket is tested on its own (`answersRealtimeHeartbeats`, `realtimeServiceIsUp`).
    public func setServiceUp(_ up: Bool) async throws {
        if let emulator {
            emulator.realtimeServiceIsUp = up
            if !up { emulator.dropRealtimeSockets() }
            return
        }
        guard let commands else { return }
        let command = up ? commands.start : commands.stop
        let process = try HelperProcess(URL(fileURLWithPath: "/bin/sh"), arguments: ["-c", command + " >/dev/null 2>&1"])
        let ended = await process.exited()
        guard ended == .exit(0) else { throw RealtimeServerError.commandFailed(command, ended) }
    }

    /// A new user, signed in, on a client with `realtime`'s configuration and no retries.
    public func newUser(realtime: RealtimeConfiguration) async throws -> (selfdb: SelfDB, user: UserRead) {
        let admin = try await self.admin()
        let email = "realtime-\(UUID().uuidString.prefix(8).lowercased())@example.com"
        let user = try await admin.auth.users.create(payload: UserCreate(email: email, password: "Password123", firstName: "Realtime", lastName: "Outage"))
        let selfdb = SelfDB(baseURL: baseURL, apiKey: apiKey, retryPolicy: .none, realtime: realtime)
        try await selfdb.auth.login(email: email, password: "Password123")
        return (selfdb, user)
    }

    /// The same user on another device: its own client and session, no realtime.
    public func otherDevice(of user: UserRead) async throws -> SelfDB {
        let device = SelfDB(baseURL: baseURL, apiKey: apiKey, retryPolicy: .none)
        try await device.auth.login(email: user.email, password: "Password123")
        return device
    }

    /// Makes `Row`'s table as the admin (on a real server it may exist already, made by an
    /// earlier run: SelfDB then returns it).
    @discardableResult
    public func prepareTable<Row: TableModel>(_ type: Row.Type) async throws -> TableRead {
        try await admin().tables.create(from: Row.self)
    }

    private func admin() async throws -> SelfDB {
        let environment = ProcessInfo.processInfo.environment
        let admin = SelfDB(baseURL: baseURL, apiKey: apiKey, retryPolicy: .none)
        try await admin.auth.login(
            email: emulator == nil ? environment["SELFDB_REAL_EMAIL"] ?? FlakyServer.adminEmail : FlakyServer.adminEmail,
            password: emulator == nil ? environment["SELFDB_REAL_PASSWORD"] ?? FlakyServer.adminPassword : FlakyServer.adminPassword
        )
        return admin
    }
}

/// A realtime-service command that did not succeed.
public enum RealtimeServerError: Error, CustomStringConvertible {
    case commandFailed(String, HelperProcess.Termination)

    public var description: String {
        switch self {
        case .commandFailed(let command, let ended): "`\(command)` ended with \(ended)"
        }
    }
}

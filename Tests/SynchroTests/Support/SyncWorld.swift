import Foundation
import SelfDBEmulator
import SelfDBRuntime
import Synchro
import Testing

/// An emulator serving `Spec/Examples/tasks-sync.yaml` on loopback, and devices —
/// ``SynchroClient``s on their own SQLite files in a temporary folder — of any user.
final class SyncWorld: @unchecked Sendable {
    static let repositoryRoot = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    static let tasksSpec = repositoryRoot.appendingPathComponent("Spec/Examples/tasks-sync.yaml")
    /// Protocol 2's shared scope and documents shared between users, beside the tasks.
    static let sharingSpec = repositoryRoot.appendingPathComponent("Spec/Examples/sharing-sync.yaml")

    private(set) var emulator: SelfDBEmulator
    let directory: URL
    private var configuration: SelfDBEmulator.Configuration
    private var clients: [SynchroClient] = []

    private init(emulator: SelfDBEmulator, directory: URL, configuration: SelfDBEmulator.Configuration) {
        self.emulator = emulator
        self.directory = directory
        self.configuration = configuration
    }

    /// Starts an emulator (data in a fresh folder, kept across ``restartEmulator(changing:)``),
    /// runs `body`, and always stops and removes everything.
    static func run<T>(
        configure: (inout SelfDBEmulator.Configuration) -> Void = { _ in },
        _ body: (SyncWorld) async throws -> T
    ) async throws -> T {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("synchro-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        var configuration = SelfDBEmulator.Configuration(
            dataDirectory: directory.appendingPathComponent("server"),
            apiKey: "test-key",
            passwordHashIterations: 1_000,
            syncSpecs: [tasksSpec],
            syncClockSkewTolerance: 0,
            // Protocol 1, as these tests were written for; protocol 2's configure `.two`.
            syncProtocol: .one
        )
        configure(&configuration)
        let world = SyncWorld(emulator: try await SelfDBEmulator.start(configuration), directory: directory, configuration: configuration)
        defer { try? FileManager.default.removeItem(at: directory) }
        do {
            let result = try await body(world)
            await world.shutDown()
            return result
        } catch {
            await world.shutDown()
            throw error
        }
    }

    private func shutDown() async {
        for client in clients { try? client.close() }
        await emulator.stop()
    }

    /// A new user id (the owner column is a uuid).
    static func newUser() -> String { UUID().uuidString.lowercased() }

    /// A device of `user`: a client on `<name>.sqlite` (over `transport` when given), syncing
    /// only when told to unless the configuration says otherwise.
    func device(
        _ name: String,
        user: String,
        appVersion: String = "1.0.0",
        transport: (any HTTPTransport)? = nil,
        configure: (inout SynchroConfig) -> Void = { _ in }
    ) throws -> SynchroClient {
        let token = emulator.syncAccessToken(forUser: user)
        var config = SynchroConfig(
            dbPath: directory.appendingPathComponent("\(name).sqlite").path,
            serverURL: emulator.baseURL,
            authProvider: { token },
            clientID: "\(name)-\(user.prefix(8))",
            platform: "linux",
            appVersion: appVersion,
            syncInterval: 3600,
            pushDebounce: 3600,
            maxRetryAttempts: 1
        )
        configure(&config)
        let client = try transport.map { try SynchroClient(config: config, transport: $0) } ?? SynchroClient(config: config)
        clients.append(client)
        return client
    }

    /// A device as ``device(_:user:appVersion:configure:)`` makes it, already started.
    func startedDevice(
        _ name: String,
        user: String,
        appVersion: String = "1.0.0",
        configure: (inout SynchroConfig) -> Void = { _ in }
    ) async throws -> SynchroClient {
        let client = try device(name, user: user, appVersion: appVersion, configure: configure)
        try await client.start()
        return client
    }

    /// Stops the emulator and starts it again on the same port and data, optionally with
    /// another configuration (e.g. a changed sync spec).
    func restartEmulator(changing change: (inout SelfDBEmulator.Configuration) -> Void = { _ in }) async throws {
        await emulator.stop()
        configuration.port = emulator.port
        change(&configuration)
        emulator = try await SelfDBEmulator.start(configuration)
    }

    /// Stops the emulator (a device is offline from then on until ``startEmulator()``).
    func stopEmulator() async {
        configuration.port = emulator.port
        await emulator.stop()
    }

    func startEmulator() async throws {
        emulator = try await SelfDBEmulator.start(configuration)
    }
}

extension SynchroClient {
    /// The live rows of `table` as `id → title` (or another column), ids lower-cased.
    func live(_ table: String, column: String = "title") throws -> [String: String] {
        var result: [String: String] = [:]
        for row in try query("SELECT id, \(column) AS value FROM \(table) WHERE deleted_at IS NULL") {
            let id: String = row["id"]
            result[id.lowercased()] = row["value"] ?? ""
        }
        return result
    }
}

import Foundation
import SelfDB
import SelfDBEmulator
import SelfDBRuntime
import Testing

/// An emulator on a loopback port with its own data directory (so it can be restarted on the
/// same port and data), and a signed-in admin client with the test tables created.
final class RealtimeFixture: Sendable {
    static let apiKey = "realtime-test-key"
    static let adminEmail = "admin@example.com"
    static let adminPassword = "Admin123!"

    let emulator: Locked<SelfDBEmulator>
    let dataDirectory: URL
    let port: Int
    let selfdb: SelfDB
    let adminID: UUID

    private init(emulator: SelfDBEmulator, dataDirectory: URL, selfdb: SelfDB, adminID: UUID) {
        self.emulator = Locked(emulator)
        self.dataDirectory = dataDirectory
        self.port = emulator.port
        self.selfdb = selfdb
        self.adminID = adminID
    }

    /// Fast reconnects, so the failure tests take seconds, not minutes. The heartbeat is
    /// relaxed except where a test is about heartbeats: on a loaded 2-core CI machine a reply
    /// can take longer than a very short interval, and the reconnect that follows would drop
    /// the events a test is waiting for (Phoenix does not replay them).
    static func configuration(_ serializer: PhoenixSerializer = .v1, heartbeat: Duration = .seconds(30)) -> RealtimeConfiguration {
        RealtimeConfiguration(
            serializer: serializer,
            heartbeatInterval: heartbeat,
            replyTimeout: .seconds(30),
            reconnectBackoff: ReconnectBackoff(initial: .milliseconds(50), maximum: .milliseconds(400))
        )
    }

    /// Runs `body` against a fresh emulator; disconnects and stops it afterwards whatever happens.
    static func run(_ serializer: PhoenixSerializer = .v1, heartbeat: Duration = .seconds(30), _ body: (RealtimeFixture) async throws -> Void) async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("selfdb-realtime-\(UUID().uuidString)")
        let emulator = try await SelfDBEmulator.start(Self.emulatorConfiguration(port: 0, directory: directory))
        let fixture: RealtimeFixture
        do {
            let selfdb = SelfDB(baseURL: emulator.baseURL, apiKey: apiKey, retryPolicy: .none, realtime: configuration(serializer, heartbeat: heartbeat))
            try await selfdb.auth.login(email: adminEmail, password: adminPassword)
            _ = try await selfdb.tables.create(from: Note.self)
            _ = try await selfdb.tables.create(from: Tag.self)
            fixture = RealtimeFixture(emulator: emulator, dataDirectory: directory, selfdb: selfdb, adminID: try await selfdb.auth.me().id)
        } catch {
            await emulator.stop()
            try? FileManager.default.removeItem(at: directory)
            throw error
        }
        do {
            try await body(fixture)
        } catch {
            await fixture.tearDown()
            throw error
        }
        await fixture.tearDown()
    }

    private static func emulatorConfiguration(port: Int, directory: URL) -> SelfDBEmulator.Configuration {
        .init(dataDirectory: directory, apiKey: apiKey, admin: .init(email: adminEmail, password: adminPassword), port: port, passwordHashIterations: 1_000)
    }

    /// Stops the emulator (sockets close, the port is free) and starts a new one on the same
    /// port and data directory.
    func restartEmulator(downtime: Duration = .milliseconds(300)) async throws {
        await emulator.current.stop()
        try await Task.sleep(for: downtime)
        let restarted = try await SelfDBEmulator.start(Self.emulatorConfiguration(port: port, directory: dataDirectory))
        emulator.withLock { $0 = restarted }
    }

    func note(_ body: String, rank: Int = 0) -> Note {
        Note(id: UUID(), body: body, rank: rank, userId: adminID)
    }

    private func tearDown() async {
        try? await selfdb.realtime.disconnect()
        await emulator.current.stop()
        try? FileManager.default.removeItem(at: dataDirectory)
    }
}

/// Values delivered by callbacks or streams, for a test to wait on.
final class Inbox<Value: Sendable>: Sendable {
    private let values = Locked<[Value]>([])

    func append(_ value: Value) {
        values.withLock { $0.append(value) }
    }

    var all: [Value] { values.current }

    /// Waits (up to `timeout`) until some delivered value satisfies `predicate`, and returns it.
    func first(within timeout: Duration = .seconds(20), where predicate: (Value) -> Bool = { _ in true }, sourceLocation: SourceLocation = #_sourceLocation) async throws -> Value {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            if let match = values.current.first(where: predicate) { return match }
            try await Task.sleep(for: .milliseconds(10))
        }
        Issue.record("nothing matching arrived within \(timeout); got \(values.current)", sourceLocation: sourceLocation)
        throw CancellationError()
    }

    /// Collects everything `stream` yields until the test ends.
    static func collecting<S: AsyncSequence & Sendable>(_ stream: S) -> (Inbox<Value>, Task<Void, Never>) where S.Element == Value {
        let inbox = Inbox<Value>()
        let task = Task {
            do {
                for try await value in stream { inbox.append(value) }
            } catch {}
        }
        return (inbox, task)
    }
}

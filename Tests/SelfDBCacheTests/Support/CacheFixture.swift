import Foundation
import SelfDB
import SelfDBCache
import SelfDBEmulator
import Testing

/// An emulator on a loopback port whose data directory outlives it, so a test can stop the
/// server and start it again on the same port with the same data; plus temporary cache files.
@MainActor
final class CacheFixture {
    static let apiKey = "cache-test-key"
    static let password = "Password123"

    let directory: URL
    private(set) var emulator: SelfDBEmulator
    let port: Int

    private init(directory: URL, emulator: SelfDBEmulator) {
        self.directory = directory
        self.emulator = emulator
        self.port = emulator.port
    }

    /// Runs `body` against a fresh emulator, cleaning up afterwards whatever happens.
    static func run(_ body: (CacheFixture) async throws -> Void) async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("selfdb-cache-test-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let emulator = try await SelfDBEmulator.start(Self.configuration(directory: directory, port: 0))
        let fixture = CacheFixture(directory: directory, emulator: emulator)
        do {
            try await body(fixture)
        } catch {
            await fixture.emulator.stop()
            try? FileManager.default.removeItem(at: directory)
            throw error
        }
        await fixture.emulator.stop()
        try? FileManager.default.removeItem(at: directory)
    }

    private static func configuration(directory: URL, port: Int) -> SelfDBEmulator.Configuration {
        .init(
            dataDirectory: directory.appendingPathComponent("server", isDirectory: true),
            apiKey: apiKey,
            admin: .init(email: "admin@example.com", password: "Admin123!"),
            port: port,
            passwordHashIterations: 1_000
        )
    }

    /// The server goes away (connections are refused).
    func stopServer() async {
        await emulator.stop()
    }

    /// The server comes back on the same port with the same data.
    func restartServer() async throws {
        emulator = try await SelfDBEmulator.start(Self.configuration(directory: directory, port: port))
    }

    /// A new user, signed in, with its client (no retries: offline must show at once).
    func newUser(_ name: String = "user") async throws -> (SelfDB, UserRead) {
        let selfdb = SelfDB(baseURL: emulator.baseURL, apiKey: Self.apiKey, retryPolicy: .none)
        let email = "\(name)-\(UUID().uuidString.prefix(8).lowercased())@example.com"
        let user = try await selfdb.auth.users.create(payload: UserCreate(email: email, password: Self.password, firstName: "Test", lastName: name))
        try await selfdb.auth.login(email: email, password: Self.password)
        return (selfdb, user)
    }

    /// A path for a cache file in the test's directory.
    func cachePath(_ name: String = "cache") -> String {
        directory.appendingPathComponent("\(name).sqlite").path
    }

    /// A signed-in user whose `Chore` table exists with `count` rows ranked 1...count.
    func seeded(_ count: Int, name: String = "owner") async throws -> (SelfDB, UserRead, [Chore]) {
        let (selfdb, user) = try await newUser(name)
        try await selfdb.tables.create(from: Chore.self)
        var rows: [Chore] = []
        for rank in 1...max(count, 1) where count > 0 {
            rows.append(try await selfdb.tables.data.insert(Chore(id: UUID(), title: "chore \(rank)", rank: rank, userId: user.id)))
        }
        return (selfdb, user, rows)
    }

    /// The server's rows of `Chore`, by rank.
    static func serverRows(_ selfdb: SelfDB) async throws -> [Chore] {
        try await selfdb.tables.data.query(Chore.self).sort(.rank, .asc).pageSize(1000).execute()
    }
}

/// Waits (up to 20 s, polling) until `condition` holds; for events that arrive asynchronously.
/// The limit is generous because a passing test never reaches it, and a loaded 2-core CI
/// machine running the whole suite can take seconds to deliver an event.
@MainActor
func eventually(_ what: String, sourceLocation: SourceLocation = #_sourceLocation, _ condition: @MainActor () throws -> Bool) async throws {
    let deadline = ContinuousClock.now + .seconds(20)
    while ContinuousClock.now < deadline {
        if try condition() { return }
        try await Task.sleep(for: .milliseconds(10))
    }
    if try condition() { return }
    Issue.record("timed out waiting for \(what)", sourceLocation: sourceLocation)
}

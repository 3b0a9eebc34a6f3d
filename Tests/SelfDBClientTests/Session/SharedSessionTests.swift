import Foundation
import SelfDB
import SelfDBEmulator
import SelfDBRuntime
import SelfDBTestSupport
import Testing

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

#if os(macOS) || os(Linux)
/// Processes of one app sharing a `FileTokenStore` file (an app and its widget), each a
/// `selfdb-session-helper` started with `posix_spawn`, against the emulator, whose refresh
/// widens SelfDB's gap between validating a token and rotating it so that two refreshes with
/// one token race as they can in production (and revoke every session of the user). Each round
/// marks the shared session expired and has every process call at once: exactly one refresh
/// may reach the server, no process may be signed out, no session revoked.
@Suite("a session shared by processes", .serialized)
struct SharedSessionTests {
    static let rounds = 20

    @Test(arguments: [2, 3])
    func processesSharingAStoreRefreshOncePerExpiry(_ processes: Int) async throws {
        let environment = ProcessInfo.processInfo.environment
        if let real = environment["SELFDB_REAL_URL"].flatMap(URL.init(string:)) {
            try await Self.rounds(processes: processes, baseURL: real, apiKey: environment["SELFDB_REAL_API_KEY"] ?? "test-api-key", emulator: nil)
        }
        try await ClientFixture.run { fixture in
            fixture.emulator.refreshRotationDelay = .milliseconds(100)
            try await Self.rounds(processes: processes, baseURL: fixture.emulator.baseURL, apiKey: ClientFixture.apiKey, emulator: fixture.emulator)
        }
    }

    static func rounds(processes: Int, baseURL server: URL, apiKey: String, emulator: SelfDBEmulator?) async throws {
        // Every request goes through a proxy (no faults), which counts the refreshes.
        let proxy = try FaultProxy(upstream: server)
        defer { proxy.stop() }
        let baseURL = proxy.baseURL
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("shared-session-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let storeURL = directory.appendingPathComponent("session.json")
        let store = FileTokenStore(url: storeURL)
        // The user, signed in through the shared file, and once more elsewhere.
        let email = "shared-\(UUID().uuidString.prefix(8).lowercased())@example.com"
        let app = SelfDB(baseURL: baseURL, apiKey: apiKey, tokenStore: store, retryPolicy: .none)
        _ = try await app.auth.users.create(payload: UserCreate(email: email, password: "Password123", firstName: "Shared", lastName: "Session"))
        try await app.auth.login(email: email, password: "Password123")
        let elsewhere = SelfDB(baseURL: baseURL, apiKey: apiKey, tokenStore: InMemoryTokenStore(), retryPolicy: .none)
        try await elsewhere.auth.login(email: email, password: "Password123")

        let helpers = try (0..<processes).map { index in try SessionHelper(rounds: baseURL, apiKey: apiKey, store: storeURL, commands: directory.appendingPathComponent("commands-\(index)")) }
        for helper in helpers { #expect(await helper.nextLine() == "ready") }
        var refreshes: [Int] = []
        for round in 1...Self.rounds {
            // Every process finds the shared access token expired at once.
            let current = try #require(await store.reload())
            await store.save(StoredSession(accessToken: current.accessToken, refreshToken: current.refreshToken, expiresAt: Date(timeIntervalSinceNow: -1)))
            let before = proxy.requests("POST", pathPrefix: "/users/token/refresh").count
            for helper in helpers { helper.command("round \(round)") }
            for helper in helpers {
                let line = await helper.nextLine() ?? "(no answer)"
                #expect(line.hasPrefix("done \(round) ok=5 failed=0 session=yes"), "round \(round): \(line)")
            }
            refreshes.append(proxy.requests("POST", pathPrefix: "/users/token/refresh").count - before)
        }
        for helper in helpers { helper.command("quit") }
        for helper in helpers { #expect(await helper.process.exited() == .exit(0)) }
        #expect(refreshes == Array(repeating: 1, count: Self.rounds), "refreshes per round: \(refreshes)")
        // No process was signed out, and the user's other session was not revoked.
        #expect(try await app.auth.me().email == email)
        let other = try #require(await elsewhere.session?.refreshToken)
        _ = try await elsewhere.auth.refresh(refreshToken: other)
        print("shared session (\(processes) processes, \(server.absoluteString)): \(Self.rounds) rounds, refreshes per round \(refreshes)")
    }

    /// A process killed while it holds the refresh lock blocks no one: the system releases it.
    @Test func aProcessKilledHoldingTheLockBlocksNoOne() async throws {
        try await ClientFixture.run { fixture in
            let directory = FileManager.default.temporaryDirectory.appendingPathComponent("shared-session-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(at: directory) }
            let storeURL = directory.appendingPathComponent("session.json")
            let store = FileTokenStore(url: storeURL)
            let app = fixture.client(tokenStore: store)
            try await app.auth.login(email: ClientFixture.adminEmail, password: ClientFixture.adminPassword)
            let holder = try SessionHelper(holdingLockOf: storeURL)
            #expect(await holder.nextLine() == "locked")

            let current = try #require(await store.reload())
            await store.save(StoredSession(accessToken: current.accessToken, refreshToken: current.refreshToken, expiresAt: Date(timeIntervalSinceNow: -1)))
            let done = Locked(false)
            let call = Task {
                defer { done.withLock { $0 = true } }
                return try await app.auth.me().email
            }
            // The call waits for the lock while its holder lives…
            try await Task.sleep(for: .milliseconds(300))
            #expect(!done.current, "the refresh ran while another process held the lock")
            #expect(fixture.emulator.requestCount(method: "POST", path: "/users/token/refresh") == 0)
            // …and goes on once it is killed.
            holder.process.send(SIGKILL)
            #expect(await holder.process.exited() == .signal(SIGKILL))
            #expect(try await call.value == ClientFixture.adminEmail)
            #expect(fixture.emulator.requestCount(method: "POST", path: "/users/token/refresh") == 1)
        }
    }
}

/// A `selfdb-session-helper` process, its commands FIFO and its output lines. Used by one
/// test at a time.
final class SessionHelper {
    let process: HelperProcess
    private let commands: URL?
    private var lines: AsyncStream<String>.Iterator
    private var writer: FileHandle?

    convenience init(rounds baseURL: URL, apiKey: String, store: URL, commands: URL) throws {
        guard mkfifo(commands.path, 0o600) == 0 else { throw SessionHelperError.fifo(errno) }
        try self.init(["rounds", baseURL.absoluteString, apiKey, store.path, commands.path, "5"], commands: commands)
    }

    convenience init(holdingLockOf store: URL) throws {
        try self.init(["hold-lock", store.path], commands: nil)
    }

    private init(_ arguments: [String], commands: URL?) throws {
        guard let executable = TestExecutables.url(named: "selfdb-session-helper") else { throw SessionHelperError.notBuilt }
        process = try HelperProcess(executable, arguments: arguments, mergeErrors: true)
        self.commands = commands
        let (stream, continuation) = AsyncStream.makeStream(of: String.self)
        lines = stream.makeAsyncIterator()
        let output = process.output
        // A blocking read on a thread of its own, never the cooperative pool.
        Thread {
            var pending = Data()
            while true {
                let chunk = output.availableData
                if chunk.isEmpty { break }
                pending += chunk
                while let newline = pending.firstIndex(of: UInt8(ascii: "\n")) {
                    continuation.yield(String(decoding: pending[..<newline], as: UTF8.self))
                    pending = pending[(newline + 1)...]
                }
            }
            continuation.finish()
        }.start()
    }

    /// The helper's next output line; nil once it ended.
    func nextLine() async -> String? {
        await lines.next()
    }

    /// Writes `line` to the helper's commands. The first opens the FIFO, which waits for the
    /// helper to open its end (it does right after "ready").
    func command(_ line: String) {
        guard let commands else { return }
        if writer == nil { writer = FileHandle(forWritingAtPath: commands.path) }
        writer?.write(Data((line + "\n").utf8))
    }
}

enum SessionHelperError: Error {
    case notBuilt
    case fifo(Int32)
}
#endif

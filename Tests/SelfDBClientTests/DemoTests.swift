// The demo runs as a process of its own, and only macOS and Linux can start one.
#if os(macOS) || os(Linux)
import Foundation
import SelfDB
import SelfDBEmulator
import SelfDBRuntime
import SelfDBTestSupport
import Testing

/// `SELFDB_URL=… SELFDB_API_KEY=… ./Scripts/demo.sh` as a SelfDB user first runs it: the
/// `selfdb-demo` executable against a server, here an emulator standing in for a real SelfDB
/// whose realtime service is not reachable, left as an earlier demo run can leave a server.
@Suite("The demo against a server", .serialized)
struct DemoTests {
    static let apiKey = "demo-test-key"
    static let admin = SelfDBEmulator.AdminAccount(email: "admin@example.com", password: "Admin123!")

    @Test func runsTwiceOnOneServerWithoutRealtimeAndLeavesItAsFound() async throws {
        let demo = try #require(TestExecutables.url(named: "selfdb-demo"), "selfdb-demo is not built next to the tests")
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("demo-tests-\(UUID().uuidString)", isDirectory: true)
        defer { try? FileManager.default.removeItem(at: directory) }

        var emulator = try await Self.start(directory)
        try await Self.leaveWhatAnEarlierRunLeft(emulator)
        let found = try await Self.state(of: emulator)
        for run in 1...2 {
            let result = try await Self.runDemo(demo, against: emulator)
            let output = result.output
            #expect(result.status == 0, "run \(run) exited with \(result.status):\n\(output)")
            #expect(output.contains("realtime is not reachable at ws://127.0.0.1:\(emulator.port)/realtime/socket"), "run \(run):\n\(output)")
            #expect(output.contains("– Realtime: skipped"), "run \(run):\n\(output)")
            #expect(!output.contains(Self.apiKey), "run \(run) printed the API key")
            #expect(output.contains("cleaned up what this run wrote"), "run \(run):\n\(output)")
            #expect(output.contains("▸ Update and delete a row\n  pinned"), "run \(run) did not change its own row:\n\(output)")
            #expect(try await Self.state(of: emulator) == found, "run \(run) left the server changed")
            // The second run meets the server as the first left it, from the same data folder.
            await emulator.stop()
            emulator = try await Self.start(directory)
        }
        await emulator.stop()
    }

    @Test func aPartThatFailsMakesTheExitStatusNonZeroAndTheRestStillRuns() async throws {
        let demo = try #require(TestExecutables.url(named: "selfdb-demo"), "selfdb-demo is not built next to the tests")
        let emulator = try await Self.start(nil)
        let found = try await Self.state(of: emulator)
        emulator.injectFault(.internalServerError, method: "POST", path: "/storage/buckets/")
        let result = try await Self.runDemo(demo, against: emulator)
        let left = try await Self.state(of: emulator)
        await emulator.stop()
        #expect(result.status != 0, "\(result.output)")
        #expect(result.output.contains("✗ Client: HTTP 500"), "\(result.output)")
        #expect(result.output.contains("✓ Offline-first cache"), "\(result.output)")
        #expect(result.output.contains("✓ Synchro"), "\(result.output)")
        // Four notes written, the realtime part skipped, one note deleted, then the bucket refused.
        #expect(result.output.contains("▸ Clean up after the failure\n  cleaned up what this run wrote: 3 rows, the table demo_notes"), "\(result.output)")
        #expect(left == found, "the failed run left the server changed")
    }

    // MARK: - Helpers

    /// An emulator on a free loopback port whose realtime service is not reachable.
    static func start(_ directory: URL?) async throws -> SelfDBEmulator {
        let emulator = try await SelfDBEmulator.start(.init(dataDirectory: directory, apiKey: apiKey, admin: admin, passwordHashIterations: 1_000))
        emulator.acceptsRealtimeConnections = false
        return emulator
    }

    /// What an earlier run of the demo could leave (one that stopped before its clean-up): the
    /// `Note` table, private and realtime-enabled, owned by that run's user, with its rows.
    static func leaveWhatAnEarlierRunLeft(_ emulator: SelfDBEmulator) async throws {
        let selfdb = SelfDB(baseURL: emulator.baseURL, apiKey: apiKey)
        let user = try await selfdb.auth.users.create(payload: UserCreate(email: "earlier-demo@example.com", password: "DemoPass123!", firstName: "Earlier", lastName: "Demo"))
        try await selfdb.auth.login(email: user.email, password: "DemoPass123!")
        let schema: TableSchema = [
            "id": ColumnSchema(type: "uuid", nullable: false),
            "title": ColumnSchema(type: "text", nullable: false),
            "body": ColumnSchema(type: "text"),
            "pinned": ColumnSchema(type: "boolean", default: .bool(false)),
            "created_at": ColumnSchema(type: "timestamp"),
            "user_id": ColumnSchema(type: "uuid"),
        ]
        let table = try await selfdb.tables.create(payload: TableCreate(name: "demo_notes", tableSchema: schema))
        _ = try await selfdb.tables.update(table.id, payload: TableUpdate(realtimeEnabled: true))
        // First in a search for "milk" sorted by title: what the second run used to update.
        for title in ["Buy milk", "Milk the cows"] {
            let row: [String: SelfDBRuntime.JSONValue] = [
                "id": .string(UUID().uuidString.lowercased()), "title": .string(title), "pinned": .bool(false),
                "created_at": .string("2024-01-01T00:00:00Z"), "user_id": .string(user.id.uuidString.lowercased()),
            ]
            try await selfdb.tables.data.insert(table.id, data: row)
        }
    }

    /// What a server holds, as its admin sees it: tables (name, owner, rows) and buckets with
    /// their files.
    static func state(of emulator: SelfDBEmulator) async throws -> [String] {
        let selfdb = SelfDB(baseURL: emulator.baseURL, apiKey: apiKey)
        try await selfdb.auth.login(email: admin.email, password: admin.password)
        var lines: [String] = []
        for table in try await selfdb.tables.list(limit: 100) {
            let rows = try await selfdb.tables.data.fetch(table.id, pageSize: 1000).data
            let described = rows.map { row in "\(row["title"]?.stringValue ?? "?") \(row["user_id"]?.stringValue ?? "-") \(row["pinned"] ?? .null)" }
            lines.append("table \(table.name) \(table.ownerId?.uuidString ?? "-"): \(described.sorted())")
        }
        for bucket in try await selfdb.storage.buckets.list(limit: 100) {
            let files = try await selfdb.storage.files.list(bucketId: bucket.id).files.map(\.path)
            lines.append("bucket \(bucket.name): \(files.sorted())")
        }
        _ = try await selfdb.auth.logout()
        return lines.sorted()
    }

    /// Runs the demo with `SELFDB_URL` and `SELFDB_API_KEY` naming `emulator`; its exit status and
    /// everything it printed. Killed after a minute.
    static func runDemo(_ executable: URL, against emulator: SelfDBEmulator) async throws -> (status: Int32, output: String) {
        var environment = ProcessInfo.processInfo.environment
        environment["SELFDB_URL"] = emulator.baseURL.absoluteString
        environment["SELFDB_API_KEY"] = apiKey
        environment["SELFDB_LOG"] = nil
        let process = try HelperProcess(executable, environment: environment, mergeErrors: true)
        // Read on a GCD thread: a blocking read would starve the cooperative pool.
        let output = Task {
            await withCheckedContinuation { (continuation: CheckedContinuation<String, Never>) in
                DispatchQueue.global().async {
                    continuation.resume(returning: String(decoding: process.output.readDataToEndOfFile(), as: UTF8.self))
                }
            }
        }
        let watchdog = Task {
            try await Task.sleep(for: .seconds(60))
            process.send(SIGTERM)
        }
        let status: Int32
        switch await process.exited() {
        case .exit(let code): status = code
        case .signal(let signal): status = 128 + signal
        }
        watchdog.cancel()
        return (status, await output.value)
    }
}
#endif

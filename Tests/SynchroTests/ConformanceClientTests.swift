import Foundation
import GRDB
import SelfDBEmulator
import SelfDBRuntime
import Synchro
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The client-side facts of Synchro's conformance corpus (`conformance/traces/`,
/// `conformance/performance/budgets.json` at 0.3.0), asked of this client against the
/// emulator's protocol-2 server. The client's states are not public; a trace is read from the
/// requests it sends and from its durable state (`_synchro_pending`, `_synchro_scopes`) as
/// each request leaves.
@Suite("Synchro conformance fixtures: the client")
struct ConformanceClientTests {
    static func protocolTwo(_ configuration: inout SelfDBEmulator.Configuration) {
        configuration.syncProtocol = .two
    }

    /// The `/sync/…` paths the emulator answered, in order.
    static func syncRequests(_ world: SyncWorld) -> [String] {
        world.emulator.recordedRequests().map(\.path).filter { $0.hasPrefix("/sync/") }
    }

    static func insertTask(_ device: SynchroClient, _ id: String, user: String, title: String) throws {
        try device.execute("INSERT INTO tasks (id, user_id, title) VALUES (?, ?, ?)", params: [id, user, title])
    }

    @Test("traces/offline-write-before-first-connect: the write is durable and queued before any connect succeeds, and pushed before the first pull")
    func offlineWriteBeforeFirstConnect() async throws {
        try await SyncWorld.run(configure: Self.protocolTwo) { world in
            let user = SyncWorld.newUser()
            // A database with the synced tables before this device ever connected: a seed
            // copied from another device of the user.
            let source = try await world.startedDevice("source", user: user)
            let seeded = UUID().uuidString.lowercased()
            try Self.insertTask(source, seeded, user: user, title: "seeded")
            try await source.syncNow()
            try source.close()
            let seed = world.directory.appendingPathComponent("seed.sqlite").path
            try FileManager.default.copyItem(atPath: source.config.dbPath, toPath: seed)

            // uninitialized → local_ready, with the server down: a write to a synced table is queued.
            await world.stopEmulator()
            let device = try world.device("offline", user: user) { $0.seedDatabasePath = seed }
            let offline = UUID().uuidString.lowercased()
            try Self.insertTask(device, offline, user: user, title: "written before the first connect")
            #expect(try device.pendingChangeCount() == 1)
            // local_ready → connecting fails: the write stays queued.
            _ = try? await device.start()
            device.stop()
            #expect(try device.pendingChangeCount() == 1)
            // Durable: a new process on the same file still has it.
            try device.close()
            let reopened = try world.device("offline", user: user) { $0.seedDatabasePath = seed }
            #expect(try reopened.pendingChangeCount() == 1)
            #expect(try reopened.live("tasks") == [seeded: "seeded", offline: "written before the first connect"])

            // connecting → ready → pushing → pulling → ready: the push comes before the first pull.
            try await world.startEmulator()
            try await reopened.start()
            let requests = Self.syncRequests(world)
            #expect(requests.first == "/sync/connect", "\(requests)")
            let push = try #require(requests.firstIndex(of: "/sync/push"), "\(requests)")
            let pull = try #require(requests.firstIndex(of: "/sync/pull"), "\(requests)")
            #expect(push < pull, "\(requests)")
            #expect(requests.count { $0 == "/sync/push" } == 1, "pushed exactly once: \(requests)")
            #expect(try reopened.pendingChangeCount() == 0)
            #expect(try world.emulator.syncedRow(table: "tasks", id: offline)?.values["title"] == .string("written before the first connect"))
            #expect(try reopened.live("tasks") == [seeded: "seeded", offline: "written before the first connect"])
        }
    }

    @Test("traces/rebuild-cycle: ready → rebuilding over several pages → ready; the scope's cursor stays null until the final page")
    func rebuildCycle() async throws {
        try await SyncWorld.run(configure: Self.protocolTwo) { world in
            let user = SyncWorld.newUser()
            let scope = "user:" + user
            let writer = try await world.startedDevice("writer", user: user)
            for index in 0..<5 {
                try Self.insertTask(writer, UUID().uuidString.lowercased(), user: user, title: "task \(index)")
            }
            try await writer.syncNow()

            let tracing = TracingTransport(scope: scope)
            // Pages of 2: protocol 2's rebuild pages by pullPageSize, as the official client does.
            let device = try world.device("reader", user: user, transport: tracing) {
                $0.pullPageSize = 2
            }
            defer { try? device.close() }
            tracing.device.withLock { $0 = device }
            try await device.start()
            #expect(try device.live("tasks").count == 5)

            // Ready; then the scope's cursor is one the server cannot verify (the fixtures'
            // illustrative one): the next cycle's pull lists the scope in rebuild.
            try device.execute("UPDATE _synchro_scopes SET cursor = ? WHERE scope_id = ?", params: ["v2.workouts_user_u_123_889.sig", scope])
            tracing.steps.withLock { $0 = [] }
            try await device.syncNow()
            let steps = tracing.steps.current
            // 5 rows from a first page of 2: three pages, or two when the second grew to 4
            // (PageSize: the server answered quickly), each asked while the one before is
            // applied.
            let paths = steps.map(\.path)
            #expect(paths == ["/sync/pull", "/sync/rebuild", "/sync/rebuild", "/sync/rebuild"] || paths == ["/sync/pull", "/sync/rebuild", "/sync/rebuild"], "\(steps)")
            // rebuilding → rebuilding: the cursor still null, nothing wiped, not done until the end.
            let pages = steps.filter { $0.path == "/sync/rebuild" }
            #expect(pages.allSatisfy { $0.cursor == nil && $0.checksum == nil }, "\(steps)")
            #expect(pages.map(\.rowsRebuilt) == pages.map(\.rowsRebuilt).sorted() && pages.allSatisfy { $0.rowsRebuilt < 5 }, "\(steps)")
            #expect(pages.allSatisfy { $0.liveRows == 5 }, "\(steps)")

            // rebuilding → ready only after the final page: its cursor and checksum installed.
            let state = try #require(try device.queryOne("SELECT cursor, checksum FROM _synchro_scopes WHERE scope_id = ?", params: [scope]))
            let cursor: String? = state["cursor"]
            let checksum: String? = state["checksum"]
            #expect(cursor != nil && cursor != "v2.workouts_user_u_123_889.sig")
            #expect(checksum.flatMap { Int32($0) } != nil)
            #expect(device.status == .idle)

            // Ready again: the next cycle is one incremental pull from that cursor.
            tracing.steps.withLock { $0 = [] }
            try await device.syncNow()
            #expect(tracing.steps.current.map(\.path) == ["/sync/pull"])
            #expect(tracing.steps.current.first?.cursor == cursor)
        }
    }

    /// `ProtocolTwoClientTests.requestBudgets` counts the requests of a warm start (2), a
    /// pull-only cycle (1) and a push+pull cycle (2); this adds which requests they are and in
    /// which order, and what a rebuild adds.
    @Test("performance/budgets: warm start is connect then pull; cycles are pull, or push then pull; a rebuild adds only /sync/rebuild pages")
    func budgets() async throws {
        try await SyncWorld.run(configure: Self.protocolTwo) { world in
            let user = SyncWorld.newUser()
            let writer = try await world.startedDevice("writer", user: user)
            for index in 0..<5 {
                try Self.insertTask(writer, UUID().uuidString.lowercased(), user: user, title: "task \(index)")
            }
            try await writer.syncNow()

            // A new device: connect, the scope's rebuild pages (5 rows in pages of 2), one pull.
            world.emulator.resetRecordedRequests()
            let first = try await world.startedDevice("budget", user: user) { $0.pullPageSize = 2 }
            let requests = Self.syncRequests(world)
            #expect(requests.first == "/sync/connect" && requests.last == "/sync/pull", "\(requests)")
            #expect(requests.dropFirst().dropLast().allSatisfy { $0 == "/sync/rebuild" }, "\(requests)")
            // 5 rows from a first page of pullPageSize 2: 3 pages, or 2 when the next grew (PageSize).
            #expect([2, 3].contains(requests.count { $0 == "/sync/rebuild" }), "5 rows in pages from pullPageSize 2: \(requests)")
            try first.close()

            // Warm: one connect (no schema fetch, no registration), then one pull.
            world.emulator.resetRecordedRequests()
            let warm = try world.device("budget", user: user) { $0.pullPageSize = 2 }
            try await warm.start()
            #expect(Self.syncRequests(world) == ["/sync/connect", "/sync/pull"])

            world.emulator.resetRecordedRequests()
            try await warm.syncNow()
            #expect(Self.syncRequests(world) == ["/sync/pull"])

            try Self.insertTask(warm, UUID().uuidString.lowercased(), user: user, title: "queued")
            world.emulator.resetRecordedRequests()
            try await warm.syncNow()
            #expect(Self.syncRequests(world) == ["/sync/push", "/sync/pull"])
        }
    }

}

/// A real transport that notes, as each sync request leaves, what the device's database says
/// about one scope at that moment: its cursor and checksum, how many rows the scope's current
/// rebuild generation has tagged, and how many live tasks there are.
private struct TracingTransport: HTTPTransport {
    struct Step: Sendable, CustomStringConvertible {
        var path: String
        var cursor: String?
        var checksum: String?
        var rowsRebuilt: Int
        var liveRows: Int

        var description: String { "\(path) cursor=\(cursor ?? "null") checksum=\(checksum ?? "null") rebuilt=\(rowsRebuilt) live=\(liveRows)" }
    }

    let scope: String
    let steps = Locked<[Step]>([])
    let device = Locked<SynchroClient?>(nil)
    private let real = URLSessionTransport()

    init(scope: String) {
        self.scope = scope
    }

    func send(_ request: URLRequest) async throws -> (Data, HTTPURLResponse) {
        let path = request.url?.path ?? ""
        if let device = device.current, path.hasPrefix("/sync/") {
            let state = try device.queryOne("SELECT cursor, checksum FROM _synchro_scopes WHERE scope_id = ?", params: [scope])
            let rebuilt = try device.queryOne(
                """
                SELECT COUNT(*) AS n FROM _synchro_scope_rows r JOIN _synchro_scopes s ON s.scope_id = r.scope_id AND s.generation = r.generation
                WHERE r.scope_id = ?
                """,
                params: [scope]
            )
            // No tasks table before the first connect has installed the schema.
            let live = try? device.queryOne("SELECT COUNT(*) AS n FROM tasks WHERE deleted_at IS NULL")
            let step = Step(path: path, cursor: state?["cursor"], checksum: state?["checksum"], rowsRebuilt: rebuilt?["n"] ?? -1, liveRows: live?["n"] ?? -1)
            steps.withLock { $0.append(step) }
        }
        return try await real.send(request)
    }
}

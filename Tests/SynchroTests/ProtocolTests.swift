import Foundation
import SelfDBEmulator
import Synchro
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
import SelfDBRuntime
import GRDB
#endif

/// The protocol's harder paths: schema changes, version gates, retries, compaction, bad
/// server answers, and the errors of the note's table.
@Suite("Protocol paths")
struct ProtocolTests {
    @Test func aSchemaChangeAcrossARestartKeepsPendingChangesAndLocalTables() async throws {
        try await SyncWorld.run { world in
            let user = SyncWorld.newUser()
            let phone = try await world.startedDevice("phone", user: user)
            let oldVersion = try #require(world.emulator.syncSchema?.version)
            try phone.execute("CREATE TABLE drafts (id TEXT PRIMARY KEY, text TEXT)")
            try phone.execute("INSERT INTO drafts VALUES ('d1', 'kept locally')")
            let offline = UUID().uuidString.lowercased()
            try phone.execute("INSERT INTO tasks (id, title, user_id) VALUES (?, 'made before the change', ?)", params: [offline, user])

            // The server restarts with an extra column.
            let spec = try String(contentsOf: SyncWorld.tasksSpec, encoding: .utf8)
                .replacingOccurrences(of: "      notes: text\n", with: "      notes: text\n      estimate: { type: integer, default: 3 }\n")
            let changed = world.directory.appendingPathComponent("tasks-v2.yaml")
            try spec.write(to: changed, atomically: true, encoding: .utf8)
            try await world.restartEmulator { $0.syncSpecs = [changed] }
            #expect(try #require(world.emulator.syncSchema?.version) > oldVersion)

            try await phone.syncNow()
            #expect(try phone.pendingChangeCount() == 0)
            #expect(try world.emulator.syncedRow(table: "tasks", id: offline) != nil)
            #expect(try phone.queryOne("SELECT estimate FROM tasks WHERE id = ?", params: [offline])?["estimate"] as Int64? == 3)
            #expect(try phone.queryOne("SELECT text FROM drafts")?["text"] as String? == "kept locally")
            // Writes after the migration are tracked, the new column included.
            try phone.execute("UPDATE tasks SET estimate = 8 WHERE id = ?", params: [offline])
            try await phone.syncNow()
            #expect(try world.emulator.syncedRow(table: "tasks", id: offline)?.values["estimate"] == .int(8))
        }
    }

    @Test func anOldAppVersionIsTold() async throws {
        try await SyncWorld.run(configure: { $0.syncMinimumAppVersion = "2.0.0" }) { world in
            let user = SyncWorld.newUser()
            let old = try world.device("old", user: user, appVersion: "1.9.3")
            do {
                try await old.start()
                Issue.record("an old app version started")
            } catch SynchroError.upgradeRequired(let current, _) {
                #expect(current == "1.9.3")
            }
            #expect(old.status == .error(retryAt: nil))
            let current = try await world.startedDevice("current", user: user, appVersion: "2.1.0")
            #expect(current.status == .idle)
        }
    }

    @Test func busyServersAreRetriedAfterTheirDelay() async throws {
        try await SyncWorld.run { world in
            let user = SyncWorld.newUser()
            let phone = try await world.startedDevice("phone", user: user) { $0.maxRetryAttempts = 3 }
            let statuses = Locked<[SyncStatus]>([])
            let cancel = phone.onStatusChange { status in statuses.withLock { $0.append(status) } }
            world.emulator.injectFault(.serviceUnavailable(retryAfter: 0), method: "POST", path: "/sync/pull", count: 1)
            world.emulator.injectFault(.tooManyRequests(retryAfter: 0), method: "POST", path: "/sync/pull", count: 1)
            try phone.execute("INSERT INTO tasks (id, title, user_id) VALUES (?, 'x', ?)", params: [UUID().uuidString, user])
            try await phone.syncNow()
            #expect(statuses.current.contains { if case .error(let retryAt) = $0 { retryAt != nil } else { false } })
            #expect(phone.status == .idle)
            #expect(try phone.pendingChangeCount() == 0)

            // Out of attempts: a typed error, and the loop is still there for the next trigger.
            world.emulator.injectFault(.serviceUnavailable(retryAfter: 0), method: "POST", path: "/sync/pull", count: 3)
            await #expect(throws: SynchroError.self) { try await phone.syncNow() }
            #expect(phone.status == .error(retryAt: nil))
            try await phone.syncNow()
            #expect(phone.status == .idle)
            cancel.cancel()
        }
    }

    @Test func offlineWritesWaitForTheServer() async throws {
        try await SyncWorld.run { world in
            let user = SyncWorld.newUser()
            let phone = try await world.startedDevice("phone", user: user)
            await world.stopEmulator()
            try phone.execute("INSERT INTO tasks (id, title, user_id) VALUES (?, 'written offline', ?)", params: [UUID().uuidString, user])
            do {
                try await phone.syncNow()
                Issue.record("synced with the server down")
            } catch SynchroError.networkError {
            }
            #expect(try phone.pendingChangeCount() == 1)
            try await world.startEmulator()
            try await phone.syncNow()
            #expect(try phone.pendingChangeCount() == 0)
            #expect(try world.emulator.syncedRowCount(table: "tasks", userID: user) == 1)
        }
    }

    /// After the server compacted its log past a device's checkpoint: the device pushes,
    /// asks, and rebuilds from a snapshot — or throws when told not to.
    @Test func aCompactedLogAsksBeforeAResync() async throws {
        try await SyncWorld.run { world in
            let user = SyncWorld.newUser()
            let phone = try await world.startedDevice("phone", user: user)
            let laptop = try await world.startedDevice("laptop", user: user)
            let gone = UUID().uuidString.lowercased()
            try phone.execute("INSERT INTO tasks (id, title, user_id) VALUES (?, 'will be deleted', ?)", params: [gone, user])
            try await phone.syncNow()
            try await laptop.syncNow()
            // While the laptop is away: the phone deletes one task and adds another, the
            // server compacts its log, and the laptop edits something of its own.
            try phone.execute("DELETE FROM tasks WHERE id = ?", params: [gone])
            try phone.execute("INSERT INTO tasks (id, title, user_id) VALUES (?, 'new on the phone', ?)", params: [UUID().uuidString, user])
            try await phone.syncNow()
            try world.emulator.compactSyncLog()
            let mine = UUID().uuidString.lowercased()
            try laptop.execute("INSERT INTO tasks (id, title, user_id) VALUES (?, 'laptop offline', ?)", params: [mine, user])

            let asked = Locked(0)
            let refuse = laptop.onSnapshotRequired {
                asked.withLock { $0 += 1 }
                return false
            }
            do {
                try await laptop.syncNow()
                Issue.record("resynced though the handler said no")
            } catch SynchroError.snapshotRequired {
            }
            #expect(asked.current == 1)
            refuse.cancel()

            let agree = laptop.onSnapshotRequired { true }
            try await laptop.syncNow()
            #expect(try laptop.live("tasks").values.sorted() == ["laptop offline", "new on the phone"])
            #expect(try laptop.query("SELECT id FROM tasks WHERE id = ?", params: [gone]).isEmpty)
            #expect(try world.emulator.syncedRow(table: "tasks", id: mine) != nil)
            try await phone.syncNow()
            #expect(try phone.live("tasks") == laptop.live("tasks"))
            agree.cancel()
        }
    }

    @Test func malformedServerAnswersAreInvalidResponses() async throws {
        try await SyncWorld.run { world in
            let user = SyncWorld.newUser()
            let corruption = Locked<[String: String]>([:])
            let transport = CorruptingTransport(corruption: corruption)
            let path = world.directory.appendingPathComponent("bad.sqlite").path
            let token = world.emulator.syncAccessToken(forUser: user)
            let client = try SynchroClient(
                config: SynchroConfig(
                    dbPath: path,
                    serverURL: world.emulator.baseURL,
                    authProvider: { token },
                    clientID: "bad",
                    appVersion: "1.0.0",
                    syncInterval: 3600,
                    pushDebounce: 3600,
                    maxRetryAttempts: 1
                ),
                transport: transport
            )
            defer { try? client.close() }

            for (endpoint, body) in [
                ("/sync/schema", "not json"),
                (
                    "/sync/schema",
                    #"{"schema_version":1,"schema_hash":"x","server_time":"2026-01-01T00:00:00Z","tables":[{"table_name":"t","push_policy":"owner_only","primary_key":["missing"],"columns":[{"name":"a","db_type":"text","logical_type":"string","nullable":true}]}]}"#
                ),
            ] {
                corruption.withLock { $0 = [endpoint: body] }
                do {
                    try await client.start()
                    Issue.record("started on a bad \(endpoint)")
                } catch SynchroError.invalidResponse {
                }
            }
            corruption.withLock { $0 = [:] }
            try await client.start()
            try client.execute("INSERT INTO tasks (id, title, user_id) VALUES (?, 'kept', ?)", params: [UUID().uuidString, user])
            for (endpoint, body) in [
                ("/sync/push", #"{"accepted": "everything"}"#),
                ("/sync/pull", #"{"changes":[{"id":1}],"deletes":[],"checkpoint":"x"}"#),
                ("/sync/pull", String(repeating: "[", count: 100_000)),
                // "More" with a page that does not move the checkpoint: asking again would loop forever.
                (
                    "/sync/pull",
                    #"{"changes":[{"id":"x","table_name":"tasks","data":{},"updated_at":"2026-01-01T00:00:00Z"}],"deletes":[],"checkpoint":0,"has_more":true,"schema_version":1,"schema_hash":"x"}"#
                ),
            ] {
                corruption.withLock { $0 = [endpoint: body] }
                do {
                    try await client.syncNow()
                    Issue.record("synced through a bad \(endpoint)")
                } catch SynchroError.invalidResponse {
                }
            }
            corruption.withLock { $0 = [:] }
            // Nothing was lost on the way, and nothing of the bad pages was applied.
            #expect(try client.live("tasks").values.sorted() == ["kept"])
            #expect(try client.query("SELECT * FROM tasks").count == 1)
            try await client.syncNow()
            #expect(try client.pendingChangeCount() == 0)
            #expect(try world.emulator.syncedRowCount(table: "tasks", userID: user) == 1)
        }
    }

    /// A table the server does not let clients write: the change is refused for good,
    /// `syncNow()` says so with the results, and no orphan row stays behind.
    @Test func refusedChangesArePushRejected() async throws {
        let readOnly = """
            tables:
              Announcement:
                table: announcements
                sync: { owner: user_id, push: disabled }
                columns:
                  id: { type: uuid, primaryKey: true }
                  user_id: { type: uuid, nullable: false }
                  text: text
                  updated_at: { type: timestamp, nullable: false }
                  deleted_at: timestamp
            """
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("synchro-spec-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let spec = directory.appendingPathComponent("announcements.yaml")
        try readOnly.write(to: spec, atomically: true, encoding: .utf8)
        try await SyncWorld.run(configure: { $0.syncSpecs.append(spec) }) { world in
            let user = SyncWorld.newUser()
            let phone = try await world.startedDevice("phone", user: user)
            let id = UUID().uuidString.lowercased()
            try phone.execute("INSERT INTO announcements (id, user_id, text) VALUES (?, ?, 'hello')", params: [id, user])
            try phone.execute("INSERT INTO tasks (id, title, user_id) VALUES (?, 'fine', ?)", params: [UUID().uuidString, user])
            do {
                try await phone.syncNow()
                Issue.record("a read-only table took a write")
            } catch SynchroError.pushRejected(let results) {
                #expect(results.map(\.reasonCode) == ["table_read_only"])
                #expect(results.first?.id.lowercased() == id)
            }
            #expect(try phone.pendingChangeCount() == 0)
            #expect(try phone.query("SELECT * FROM announcements").isEmpty)
            #expect(try world.emulator.syncedRowCount(table: "tasks", userID: user) == 1, "the rest of the cycle went through")
            #expect(phone.status == .idle)
        }
    }

    @Test func aSchemaThatStillDoesNotMatchIsASchemaMismatch() async throws {
        try await SyncWorld.run { world in
            let user = SyncWorld.newUser()
            let corruption = Locked<[String: String]>([:])
            let token = world.emulator.syncAccessToken(forUser: user)
            let client = try SynchroClient(
                config: SynchroConfig(
                    dbPath: world.directory.appendingPathComponent("stale.sqlite").path,
                    serverURL: world.emulator.baseURL,
                    authProvider: { token },
                    clientID: "stale",
                    appVersion: "1.0.0",
                    syncInterval: 3600,
                    pushDebounce: 3600,
                    maxRetryAttempts: 1
                ),
                transport: CorruptingTransport(corruption: corruption)
            )
            defer { try? client.close() }
            try await client.start()
            let schema = try #require(world.emulator.syncSchema)
            corruption.withLock {
                $0 = ["/sync/pull": #"409 {"code":"schema_mismatch","message":"no","server_schema_version":99,"server_schema_hash":"zz"}"#]
            }
            do {
                try await client.syncNow()
                Issue.record("synced through a lasting schema mismatch")
            } catch SynchroError.schemaMismatch(let version, let hash) {
                // What the client re-fetched: the server's schema as it really is.
                #expect(version == schema.version)
                #expect(hash == schema.hash)
            }
            #expect(world.emulator.requestCount(method: "GET", path: "/sync/schema") >= 2, "the schema was fetched again")
        }
    }

    @Test func timerAndDebounceSyncWithoutBeingAsked() async throws {
        try await SyncWorld.run { world in
            let user = SyncWorld.newUser()
            let writer = try await world.startedDevice("writer", user: user) { $0.pushDebounce = 0.05 }
            let reader = try await world.startedDevice("reader", user: user) { $0.syncInterval = 0.2 }
            let id = UUID().uuidString.lowercased()
            try writer.execute("INSERT INTO tasks (id, title, user_id) VALUES (?, 'pushed by the debounce', ?)", params: [id, user])
            try await eventually("the debounce pushed the write") { try world.emulator.syncedRow(table: "tasks", id: id) != nil }
            try await eventually("the timer pulled it") { try reader.live("tasks")[id] == "pushed by the debounce" }
        }
    }

    @Test func overlappingSyncsMerge() async throws {
        try await SyncWorld.run(configure: { $0.responseLatency = .milliseconds(50) }) { world in
            let phone = try await world.startedDevice("phone", user: SyncWorld.newUser())
            world.emulator.resetRecordedRequests()
            try await withThrowingTaskGroup(of: Void.self) { group in
                for _ in 0..<6 { group.addTask { try await phone.syncNow() } }
                try await group.waitForAll()
            }
            // One cycle, and at most one more for the requests that came while it ran.
            #expect(world.emulator.requestCount(method: "POST", path: "/sync/pull") <= 2)
        }
    }

    @Test func stopDuringACycleStaysStopped() async throws {
        try await SyncWorld.run(configure: { $0.responseLatency = .milliseconds(200) }) { world in
            let user = SyncWorld.newUser()
            let phone = try await world.startedDevice("phone", user: user)
            try phone.execute("INSERT INTO tasks (id, title, user_id) VALUES (?, 'x', ?)", params: [UUID().uuidString, user])
            let cycle = Task { try await phone.syncNow() }
            try await Task.sleep(for: .milliseconds(50))
            phone.stop()
            _ = try? await cycle.value
            try await Task.sleep(for: .milliseconds(300))
            #expect(phone.status == .stopped)
            await #expect(throws: SynchroError.self) { try await phone.syncNow() }
            // Nothing was lost by the interruption.
            try await phone.start()
            #expect(try phone.pendingChangeCount() == 0)
            #expect(try world.emulator.syncedRowCount(table: "tasks", userID: user) == 1)
        }
    }

    @Test func syncNowDuringStartIsNotConnected() async throws {
        // A slow registration (a whole second), so that the call below still finds the device
        // starting when a loaded CI machine wakes this task late.
        try await SyncWorld.run(configure: { $0.responseLatency = .seconds(1) }) { world in
            let phone = try world.device("phone", user: SyncWorld.newUser())
            let starting = Task { try await phone.start() }
            try await Task.sleep(for: .milliseconds(50))
            do {
                try await phone.syncNow()
                Issue.record("synced before registration")
            } catch SynchroError.notConnected {
            }
            try await starting.value
            try await phone.syncNow()
        }
    }

    @Test func theNotesErrorsComeWhereItSays() async throws {
        try await SyncWorld.run { world in
            let user = SyncWorld.newUser()
            let phone = try world.device("phone", user: user)
            await #expect(throws: SynchroError.self) { try await phone.syncNow() }
            do {
                try phone.execute("INSERT INTO tasks (id, title) VALUES ('a', 'b')")
                Issue.record("wrote before the schema was known")
            } catch SynchroError.schemaNotLoaded {
            }
            try await phone.start()
            do {
                try await phone.start()
                Issue.record("started twice")
            } catch SynchroError.alreadyStarted {
            }
            do {
                try phone.execute("INSERT INTO projects (id) VALUES ('p')")
                Issue.record("wrote to a table nobody syncs")
            } catch SynchroError.tableNotSynced(let table) {
                #expect(table == "projects")
            }
            do {
                _ = try phone.query("SELECT * FROM tasks WHERE")
                Issue.record("ran broken SQL")
            } catch SynchroError.databaseError {
            }
            phone.stop()
            try await phone.start()
            #expect(phone.status == .idle)
        }
    }
}

/// A real transport whose answers for some paths are replaced by `body` (with `status`,
/// 200 unless given as `"409 {...}"`): the network between the client and a server that
/// sends nonsense.
struct CorruptingTransport: HTTPTransport {
    let corruption: Locked<[String: String]>
    let real = URLSessionTransport()

    func send(_ request: URLRequest) async throws -> (Data, HTTPURLResponse) {
        let (data, response) = try await real.send(request)
        guard let path = request.url?.path, var body = corruption.current[path] else { return (data, response) }
        var status = 200
        if let space = body.firstIndex(of: " "), let code = Int(body[..<space]) {
            status = code
            body = String(body[body.index(after: space)...])
        }
        let replaced = HTTPURLResponse(url: response.url ?? URL(fileURLWithPath: "/"), statusCode: status, httpVersion: "HTTP/1.1", headerFields: ["Content-Type": "application/json"])
        return (Data(body.utf8), replaced ?? response)
    }
}

import Foundation
import GRDB
import SelfDBEmulator
import SelfDBRuntime
import Synchro
import Testing

@testable import Synchro

/// The client against a protocol-2 server (the emulator with `syncProtocol = .two`), and
/// moving a database from a protocol-1 server to a protocol-2 one.
@Suite("Synchro protocol 2: the client")
struct ProtocolTwoClientTests {
    static func protocolTwo(_ configuration: inout SelfDBEmulator.Configuration) {
        configuration.syncProtocol = .two
    }

    @Test("two devices of a user converge; another user's device sees nothing of theirs")
    func devicesConverge() async throws {
        try await SyncWorld.run(configure: Self.protocolTwo) { world in
            let user = SyncWorld.newUser()
            let phone = try await world.startedDevice("phone", user: user)
            let tablet = try await world.startedDevice("tablet", user: user)
            let stranger = try await world.startedDevice("stranger", user: SyncWorld.newUser())

            let kept = UUID().uuidString
            let gone = UUID().uuidString
            try phone.execute("INSERT INTO tasks (id, user_id, title) VALUES (?, ?, ?)", params: [kept, user, "Review proposal"])
            try phone.execute("INSERT INTO tasks (id, user_id, title) VALUES (?, ?, ?)", params: [gone, user, "Throw away"])
            try phone.execute("INSERT INTO comments (id, task_id, body) VALUES (?, ?, ?)", params: [UUID().uuidString, kept, "first"])
            try await phone.syncNow()
            try await tablet.syncNow()
            #expect(try tablet.live("tasks") == [kept.lowercased(): "Review proposal", gone.lowercased(): "Throw away"])
            #expect(try tablet.live("comments", column: "body").values.sorted() == ["first"])

            try tablet.execute("UPDATE tasks SET title = ? WHERE id = ?", params: ["Edited on the tablet", kept])
            try tablet.execute("DELETE FROM tasks WHERE id = ?", params: [gone])
            try await tablet.syncNow()
            try await phone.syncNow()
            #expect(try phone.live("tasks") == [kept.lowercased(): "Edited on the tablet"])

            try await stranger.syncNow()
            #expect(try stranger.live("tasks").isEmpty)
            #expect(world.emulator.requestCount(method: "POST", path: "/sync/register") == 0, "protocol 2 only")
        }
    }

    @Test("request budgets: a warm start is one connect and one pull; a steady cycle one pull, two with something to push")
    func requestBudgets() async throws {
        try await SyncWorld.run(configure: Self.protocolTwo) { world in
            let user = SyncWorld.newUser()
            let first = try await world.startedDevice("budget", user: user)
            try first.execute("INSERT INTO tasks (id, user_id, title) VALUES (?, ?, ?)", params: [UUID().uuidString, user, "one"])
            try await first.syncNow()
            try first.close()

            func requests() -> Int { world.emulator.recordedRequests().filter { $0.path.hasPrefix("/sync/") }.count }
            let warm = try world.device("budget", user: user)
            let beforeStart = requests()
            try await warm.start()
            #expect(requests() - beforeStart == 2, "\(world.emulator.recordedRequests().suffix(4))")
            #expect(world.emulator.requestCount(method: "POST", path: "/sync/connect") >= 1)

            let beforeCycle = requests()
            try await warm.syncNow()
            #expect(requests() - beforeCycle == 1)

            try warm.execute("INSERT INTO tasks (id, user_id, title) VALUES (?, ?, ?)", params: [UUID().uuidString, user, "two"])
            let beforePush = requests()
            try await warm.syncNow()
            #expect(requests() - beforePush == 2)
        }
    }

    @Test("the pull's echo of a device's own push writes nothing, its key in upper case or not")
    func theEchoOfAPushWritesNothing() async throws {
        try await SyncWorld.run(configure: Self.protocolTwo) { world in
            let user = SyncWorld.newUser()
            let phone = try await world.startedDevice("phone", user: user)
            let upper = UUID().uuidString
            let lower = UUID().uuidString.lowercased()
            try phone.execute("CREATE TABLE audit (id TEXT)")
            try phone.execute("CREATE TRIGGER audit_tasks AFTER UPDATE ON tasks BEGIN INSERT INTO audit VALUES (new.id); END")
            try phone.execute("INSERT INTO tasks (id, user_id, title) VALUES (?, ?, 'upper'), (?, ?, 'lower')", params: [upper, user, lower, user])
            // One cycle: the push, settled (one write per row: the row as the server holds
            // it), then the pull that brings both rows back, equal.
            try await phone.syncNow()
            #expect(world.emulator.requestCount(method: "POST", path: "/sync/pull") >= 1)
            let written = try phone.query("SELECT id FROM audit ORDER BY id").map { $0["id"] as String }
            #expect(written == [upper.lowercased(), lower].sorted(), "one write per row, the settlement's")
            // The server's spelling of the key, and the defaults it filled in.
            let rows = try phone.query("SELECT id, title, done, priority FROM tasks ORDER BY id")
            #expect(rows.map { $0["id"] as String } == [upper.lowercased(), lower].sorted())
            #expect(rows.allSatisfy { $0["done"] as Int64? == 0 && $0["priority"] as Int64? == 0 })
            #expect(try phone.queryOne("SELECT title FROM tasks WHERE id = ?", params: [upper])?["title"] as String? == "upper")
            #expect(try phone.pendingChangeCount() == 0)
        }
    }

    @Test("a database synced with a protocol-1 server moves to a protocol-2 one: a full resync, the offline write kept")
    func movingFromProtocolOne() async throws {
        try await SyncWorld.run { world in
            let user = SyncWorld.newUser()
            let device = try await world.startedDevice("mover", user: user)
            let synced = UUID().uuidString.lowercased()
            try device.execute("INSERT INTO tasks (id, user_id, title) VALUES (?, ?, ?)", params: [synced, user, "from protocol 1"])
            try await device.syncNow()
            device.stop()

            // The server is upgraded while the device writes offline.
            try await world.restartEmulator(changing: Self.protocolTwo)
            let offline = UUID().uuidString.lowercased()
            try device.execute("INSERT INTO tasks (id, user_id, title) VALUES (?, ?, ?)", params: [offline, user, "written offline"])

            try await device.start()
            try await device.syncNow()
            #expect(try device.live("tasks") == [synced: "from protocol 1", offline: "written offline"])
            #expect(try device.pendingChangeCount() == 0)
            #expect(world.emulator.requestCount(method: "POST", path: "/sync/connect") >= 1)

            let other = try await world.startedDevice("other", user: user)
            #expect(try other.live("tasks") == [synced: "from protocol 1", offline: "written offline"])
        }
    }

    @Test("a row that leaves the user's scope (its owner changed elsewhere) is removed locally, not pushed as a delete")
    func rowLeavesTheScope() async throws {
        try await SyncWorld.run(configure: Self.protocolTwo) { world in
            let user = SyncWorld.newUser()
            let other = SyncWorld.newUser()
            let phone = try await world.startedDevice("phone", user: user)
            let laptop = try await world.startedDevice("laptop", user: user)
            let moving = UUID().uuidString.lowercased()
            try phone.execute("INSERT INTO tasks (id, user_id, title) VALUES (?, ?, ?)", params: [moving, user, "hand over"])
            try await phone.syncNow()
            try await laptop.syncNow()
            #expect(try laptop.live("tasks").keys.contains(moving))

            // Handed to another user by the operator (a device may not give its rows away:
            // `owner_only`, see OwnerOnlyClientTests).
            try world.emulator.writeSyncedRow(table: "tasks", values: ["id": .string(moving), "user_id": .string(other)])
            try await phone.syncNow()
            try await laptop.syncNow()
            #expect(try phone.live("tasks").isEmpty)
            #expect(try laptop.live("tasks").isEmpty)
            #expect(try laptop.pendingChangeCount() == 0, "cleanup queues nothing")
            let receiver = try await world.startedDevice("receiver", user: other)
            #expect(try receiver.live("tasks") == [moving: "hand over"])
        }
    }

    @Test("a 422 schema mismatch reconnects, migrates and syncs on, the pending write kept")
    func schemaChangeReconnects() async throws {
        let spec = try EditableSpec()
        defer { spec.remove() }
        try await SyncWorld.run(configure: {
            $0.syncProtocol = .two
            $0.syncSpecs = [spec.url]
        }) { world in
            let user = SyncWorld.newUser()
            let device = try await world.startedDevice("migrating", user: user)
            let id = UUID().uuidString.lowercased()
            try device.execute("INSERT INTO tasks (id, user_id, title) VALUES (?, ?, ?)", params: [id, user, "before"])
            try await device.syncNow()

            try spec.change("      notes: text\n", to: "      notes: text\n      estimate: integer\n")
            try await world.restartEmulator()
            try device.execute("UPDATE tasks SET title = ? WHERE id = ?", params: ["after", id])
            try await device.syncNow()
            let columns = try device.query("SELECT name FROM pragma_table_info('tasks')").compactMap { $0["name"] as String? }
            #expect(columns.contains("estimate"))
            #expect(try world.emulator.syncedRow(table: "tasks", id: id)?.values["title"] == .string("after"))
        }
    }

    @Test(arguments: [("2745614147", Int32(-1_549_353_149)), ("-1549353149", Int32(-1_549_353_149)), ("0", Int32(0)), ("4294967295", Int32(-1))])
    func checksumsBeyondTheSignedRangeMeanTheSameBits(_ text: String, _ expected: Int32) {
        #expect(ScopeChecksum.parse(text) == expected)
    }

    @Test func checksumsThatAreNotThirtyTwoBitsAreRefused() {
        #expect(ScopeChecksum.parse("4294967296") == nil)
        #expect(ScopeChecksum.parse("-2147483649") == nil)
        #expect(ScopeChecksum.parse("cs_a19d") == nil)
        #expect(ScopeChecksum.fromWire(2_745_614_147) == -1_549_353_149)
    }
}

/// What the real server's compaction does to a client (contract §4.6): its cursor falls below
/// the oldest entry kept, or it is deactivated. Either way the client recovers by itself and
/// keeps its pending writes.
@Suite("Synchro protocol 2: after compaction", .serialized)
struct ProtocolTwoCompactionTests {
    @Test("a cursor below the oldest entry kept rebuilds its scope; the pending write goes through")
    func staleCursorRebuilds() async throws {
        try await SyncWorld.run(configure: ProtocolTwoClientTests.protocolTwo) { world in
            let user = SyncWorld.newUser()
            let writer = try await world.startedDevice("writer", user: user)
            let behind = try await world.startedDevice("behind", user: user)
            let asked = Locked(0)
            let subscription = behind.onSnapshotRequired {
                asked.withLock { $0 += 1 }
                return true
            }
            defer { subscription.cancel() }
            var ids: [String] = []
            for index in 0..<4 {
                let id = UUID().uuidString.lowercased()
                ids.append(id)
                try writer.execute("INSERT INTO tasks (id, user_id, title) VALUES (?, ?, ?)", params: [id, user, "t\(index)"])
                try await writer.syncNow()
            }
            try await behind.syncNow()
            for index in 4..<8 {
                let id = UUID().uuidString.lowercased()
                ids.append(id)
                try writer.execute("INSERT INTO tasks (id, user_id, title) VALUES (?, ?, ?)", params: [id, user, "t\(index)"])
                try await writer.syncNow()
            }
            let local = UUID().uuidString.lowercased()
            try behind.execute("INSERT INTO tasks (id, user_id, title) VALUES (?, ?, ?)", params: [local, user, "offline"])
            // The entries `behind` has not pulled are gone, but for the newest.
            let oldest = try world.emulator.compactSyncLog()
            #expect(oldest == (try world.emulator.syncLogMaximumSequence()))
            world.emulator.resetRecordedRequests()

            try await behind.syncNow()
            #expect(asked.current == 1)
            #expect(world.emulator.recordedRequests().contains { $0.path == "/sync/rebuild" })
            #expect(try behind.pendingChangeCount() == 0)
            #expect(try Set(behind.live("tasks").keys) == Set(ids + [local]))
            try await writer.syncNow()
            #expect(try Set(writer.live("tasks").keys) == Set(ids + [local]))
        }
    }

    @Test("a deactivated client connects again by itself; the pending write goes through")
    func deactivatedClientReconnects() async throws {
        try await SyncWorld.run(configure: ProtocolTwoClientTests.protocolTwo) { world in
            let user = SyncWorld.newUser()
            let device = try await world.startedDevice("idle", user: user)
            let id = UUID().uuidString.lowercased()
            try device.execute("INSERT INTO tasks (id, user_id, title) VALUES (?, ?, ?)", params: [id, user, "while inactive"])
            try world.emulator.deactivateSyncClients()
            world.emulator.resetRecordedRequests()

            try await device.syncNow()
            let paths = world.emulator.recordedRequests().map(\.path).filter { $0.hasPrefix("/sync/") }
            #expect(paths.first == "/sync/push")
            #expect(paths.contains("/sync/connect"))
            #expect(try device.pendingChangeCount() == 0)
            #expect(try world.emulator.syncedRow(table: "tasks", id: id) != nil)
        }
    }
}

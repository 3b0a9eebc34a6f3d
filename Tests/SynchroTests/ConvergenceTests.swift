import Foundation
import GRDB
import SelfDBEmulator
import SelfDBRuntime
import Synchro
import Testing

/// Devices of one user converge through the emulator; users never see each other's rows.
@Suite("Convergence over loopback")
struct ConvergenceTests {
    @Test(arguments: SyncProtocol.allCases) func updatesAndDeletesTravelBothWays(_ syncProtocol: SyncProtocol) async throws {
        try await SyncWorld.run(configure: { $0.syncProtocol = syncProtocol }) { world in
            let user = SyncWorld.newUser()
            let phone = try await world.startedDevice("phone", user: user)
            let laptop = try await world.startedDevice("laptop", user: user)

            let id = UUID().uuidString.lowercased()
            try phone.execute("INSERT INTO tasks (id, title, user_id, done) VALUES (?, ?, ?, 0)", params: [id, "draft", user])
            try await phone.syncNow()
            try await laptop.syncNow()
            #expect(try laptop.live("tasks") == [id: "draft"])
            let done = try laptop.queryOne("SELECT done FROM tasks WHERE id = ?", params: [id])?["done"] as Int64?
            #expect(done == 0)

            try laptop.execute("UPDATE tasks SET title = ?, done = 1 WHERE id = ?", params: ["final", id])
            try await laptop.syncNow()
            try await phone.syncNow()
            #expect(try phone.live("tasks") == [id: "final"])
            #expect(try phone.queryOne("SELECT done FROM tasks WHERE id = ?", params: [id])?["done"] as Int64? == 1)

            // A hard DELETE on one device is a soft delete everywhere.
            try phone.execute("DELETE FROM tasks WHERE id = ?", params: [id])
            try await phone.syncNow()
            try await laptop.syncNow()
            #expect(try laptop.live("tasks").isEmpty)
            #expect(try laptop.queryOne("SELECT deleted_at FROM tasks WHERE id = ?", params: [id])?["deleted_at"] as String? != nil)
            let server = try #require(try world.emulator.syncedRow(table: "tasks", id: id))
            #expect(server.deletedAt != nil)
            #expect(try phone.pendingChangeCount() == 0 && laptop.pendingChangeCount() == 0)
        }
    }

    @Test(arguments: SyncProtocol.allCases) func theLoserOfAConflictHearsOfIt(_ syncProtocol: SyncProtocol) async throws {
        try await SyncWorld.run(configure: { $0.syncProtocol = syncProtocol }) { world in
            let user = SyncWorld.newUser()
            let phone = try await world.startedDevice("phone", user: user)
            let laptop = try await world.startedDevice("laptop", user: user)
            let id = UUID().uuidString.lowercased()
            try phone.execute("INSERT INTO tasks (id, title, user_id) VALUES (?, ?, ?)", params: [id, "original", user])
            try await phone.syncNow()
            try await laptop.syncNow()

            let conflicts = Locked<[ConflictEvent]>([])
            let cancel = laptop.onConflict { event in conflicts.withLock { $0.append(event) } }
            // The laptop edits first (offline), the phone edits later and pushes first: the
            // later edit wins (no clock-skew tolerance in this world).
            try laptop.execute("UPDATE tasks SET title = 'laptop' WHERE id = ?", params: [id])
            try await Task.sleep(for: .milliseconds(20))
            try phone.execute("UPDATE tasks SET title = 'phone' WHERE id = ?", params: [id])
            try await phone.syncNow()
            try await laptop.syncNow()

            #expect(try laptop.live("tasks") == [id: "phone"])
            let event = try #require(conflicts.current.first)
            #expect(event.table == "tasks")
            #expect(event.recordID == id)
            #expect(event.clientData?["title"] == "laptop")
            #expect(event.serverData?["title"] == "phone")
            #expect(try world.emulator.syncedRow(table: "tasks", id: id)?.values["title"] == .string("phone"))
            cancel.cancel()
        }
    }

    @Test(arguments: SyncProtocol.allCases) func usersSeeOnlyTheirOwnRows(_ syncProtocol: SyncProtocol) async throws {
        try await SyncWorld.run(configure: { $0.syncProtocol = syncProtocol }) { world in
            let alice = SyncWorld.newUser()
            let bob = SyncWorld.newUser()
            let alicePhone = try await world.startedDevice("alice", user: alice)
            let bobPhone = try await world.startedDevice("bob", user: bob)
            let taskID = UUID().uuidString.lowercased()
            try alicePhone.writeTransaction { db in
                try db.execute(sql: "INSERT INTO tasks (id, title, user_id) VALUES (?, 'alice task', ?)", arguments: [taskID, alice])
                try db.execute(sql: "INSERT INTO comments (id, task_id, body) VALUES (?, ?, 'alice comment')", arguments: [UUID().uuidString, taskID])
            }
            // Bob claims Alice's id as the owner.
            let claimed = UUID().uuidString
            try bobPhone.execute("INSERT INTO tasks (id, title, user_id) VALUES (?, 'bob task', ?)", params: [claimed, alice])
            try await alicePhone.syncNow()
            switch syncProtocol {
            case .one:
                try await bobPhone.syncNow()
            case .two:
                await #expect(throws: SynchroError.self) { try await bobPhone.syncNow() }
            }
            try await alicePhone.syncNow()
            #expect(try bobPhone.live("comments", column: "body").isEmpty, "Alice's rows never reach Bob")
            #expect(try alicePhone.live("tasks").values.sorted() == ["alice task"], "nothing of Bob's reaches Alice")
            switch syncProtocol {
            case .one:
                // Synchro 0.1 forces the owner column to the caller.
                #expect(try bobPhone.live("tasks").values.sorted() == ["bob task"])
                #expect(try bobPhone.queryOne("SELECT user_id FROM tasks")?["user_id"] as String? == bob)
            case .two:
                // owner_only (as the operator's write hook would): refused, and gone from Bob's
                // phone; the refusal is kept for the app.
                #expect(try bobPhone.live("tasks").isEmpty)
                #expect(try bobPhone.rejectedMutations().map(\.code) == ["policy_rejected"])
                #expect(try world.emulator.syncedRowCount(table: "tasks", userID: alice) == 1)
            }
        }
    }

    /// A task and its first comment, created offline with the comment written first, both
    /// arrive: parents' tables are pushed before their children's.
    @Test(arguments: SyncProtocol.allCases) func parentsArePushedBeforeChildren(_ syncProtocol: SyncProtocol) async throws {
        try await SyncWorld.run(configure: { $0.syncProtocol = syncProtocol }) { world in
            let user = SyncWorld.newUser()
            let phone = try await world.startedDevice("phone", user: user) { $0.pushBatchSize = 1 }
            let taskID = UUID().uuidString.lowercased()
            try phone.writeTransaction { db in
                try db.execute(sql: "INSERT INTO comments (id, task_id, body) VALUES (?, ?, 'first!')", arguments: [UUID().uuidString, taskID])
                try db.execute(sql: "INSERT INTO tasks (id, title, user_id) VALUES (?, 'new task', ?)", arguments: [taskID, user])
            }
            try await phone.syncNow()
            #expect(try phone.pendingChangeCount() == 0)
            #expect(try world.emulator.syncedRowCount(table: "tasks", userID: user) == 1)
            #expect(try world.emulator.syncedRowCount(table: "comments") == 1)
        }
    }

    @Test(arguments: SyncProtocol.allCases) func threeDevicesAndAThousandRowsAcrossPages(_ syncProtocol: SyncProtocol) async throws {
        try await SyncWorld.run(configure: { $0.syncProtocol = syncProtocol }) { world in
            let user = SyncWorld.newUser()
            let first = try await world.startedDevice("first", user: user) { $0.pushBatchSize = 100 }
            let statements = (0..<1_000).map { index in
                SQLStatement(sql: "INSERT INTO tasks (id, title, user_id, priority) VALUES (?, ?, ?, ?)", params: [UUID().uuidString, "task " + String(index), user, index])
            }
            #expect(try first.executeBatch(statements) == 1_000)
            try await first.syncNow()
            #expect(try world.emulator.syncedRowCount(table: "tasks", userID: user) == 1_000)

            // A new device takes a snapshot in pages of 100; an existing one pulls in pages.
            let second = try await world.startedDevice("second", user: user) { $0.snapshotPageSize = 100 }
            #expect(try second.live("tasks").count == 1_000)
            try second.execute("UPDATE tasks SET title = 'edited' WHERE priority < 250")
            try await second.syncNow()
            let third = try await world.startedDevice("third", user: user) { $0.pullPageSize = 100 }
            try await first.syncNow()
            for device in [first, second, third] {
                let tasks = try device.live("tasks")
                #expect(tasks.count == 1_000)
                #expect(tasks.values.filter { $0 == "edited" }.count == 250)
            }
            #expect(world.emulator.requestCount(method: "POST", path: "/sync/pull") >= 3)
        }
    }
}

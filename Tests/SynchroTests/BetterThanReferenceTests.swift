import Foundation
import GRDB
import SelfDBEmulator
import Synchro
import Testing

/// Where the Synchro reference client loses or duplicates data, and this one does not.
@Suite("Better than the reference client")
struct BetterThanReferenceTests {
    /// The reference deletes the pending row by table and id once a push returns, losing an
    /// edit made while the push was in flight.
    @Test(arguments: SyncProtocol.allCases) func anEditMadeWhileAPushIsInFlightIsNotLost(_ syncProtocol: SyncProtocol) async throws {
        try await SyncWorld.run(configure: {
            $0.responseLatency = .milliseconds(300)
            $0.syncProtocol = syncProtocol
        }) { world in
            let user = SyncWorld.newUser()
            let phone = try await world.startedDevice("phone", user: user)
            let edited = UUID().uuidString.lowercased()
            let removed = UUID().uuidString.lowercased()
            try phone.execute("INSERT INTO tasks (id, title, user_id) VALUES (?, 'first', ?), (?, 'doomed', ?)", params: [edited, user, removed, user])

            world.emulator.resetRecordedRequests()
            let push = Task { try await phone.syncNow() }
            // The server has handled the push; its answer is still on the way.
            try await eventually("the push reached the server") { world.emulator.requestCount(method: "POST", path: "/sync/push") == 1 }
            try phone.execute("UPDATE tasks SET title = 'second' WHERE id = ?", params: [edited])
            try phone.execute("DELETE FROM tasks WHERE id = ?", params: [removed])
            try await push.value

            // The cycle kept pushing until nothing was pending: the edits went in a second push.
            #expect(world.emulator.requestCount(method: "POST", path: "/sync/push") == 2)
            #expect(try phone.pendingChangeCount() == 0)
            #expect(try world.emulator.syncedRow(table: "tasks", id: edited)?.values["title"] == .string("second"))
            #expect(try world.emulator.syncedRow(table: "tasks", id: removed)?.isDeleted == true)
            #expect(try phone.live("tasks") == [edited: "second"])
        }
    }

    /// Several batches, each settled while the next is on the wire: edits made while the
    /// first is in flight, to a record of that batch and to one of a batch not yet sent, all
    /// reach the server, and nothing stays pending.
    @Test(arguments: SyncProtocol.allCases) func editsDuringAPushOfSeveralBatchesAreNotLost(_ syncProtocol: SyncProtocol) async throws {
        try await SyncWorld.run(configure: {
            $0.responseLatency = .milliseconds(200)
            $0.syncProtocol = syncProtocol
        }) { world in
            let user = SyncWorld.newUser()
            let phone = try await world.startedDevice("phone", user: user) { $0.pushBatchSize = 2 }
            let ids = (0..<6).map { _ in UUID().uuidString.lowercased() }
            try phone.writeTransaction { db in
                for (index, id) in ids.enumerated() {
                    try db.execute(sql: "INSERT INTO tasks (id, title, user_id) VALUES (?, ?, ?)", arguments: [id, "v\(index)", user])
                }
            }
            world.emulator.resetRecordedRequests()
            let push = Task { try await phone.syncNow() }
            try await eventually("the first batch reached the server") { world.emulator.requestCount(method: "POST", path: "/sync/push") >= 1 }
            // The first batch, and the second (sent before the first is answered); the third
            // waits for the first's answer.
            let sentFirst = try phone.query("SELECT record_id FROM _synchro_pending WHERE inflight_seq IS NOT NULL").map { $0["record_id"] as String }
            let waiting = try phone.query("SELECT record_id FROM _synchro_pending WHERE inflight_seq IS NULL").map { $0["record_id"] as String }
            try #require(!sentFirst.isEmpty)
            let notYetSent = try #require(waiting.last)
            try phone.execute("UPDATE tasks SET title = 'edited in flight' WHERE id = ?", params: [sentFirst[0]])
            try phone.execute("UPDATE tasks SET title = 'edited before its push' WHERE id = ?", params: [notYetSent])
            try await push.value

            #expect(try phone.pendingChangeCount() == 0)
            let expected = Dictionary(
                uniqueKeysWithValues: ids.enumerated().map { index, id in
                    (id, id == sentFirst[0] ? "edited in flight" : id == notYetSent ? "edited before its push" : "v\(index)")
                }
            )
            for (id, title) in expected {
                #expect(try world.emulator.syncedRow(table: "tasks", id: id)?.values["title"] == .string(title), "\(id)")
            }
            #expect(try phone.live("tasks") == expected)
        }
    }

    /// The note's examples insert `UUID().uuidString` (upper case) and the server answers in
    /// lower case: still one record, one local row, found by the id the app wrote.
    @Test(arguments: SyncProtocol.allCases) func upperCaseIDsStayOneRecord(_ syncProtocol: SyncProtocol) async throws {
        try await SyncWorld.run(configure: { $0.syncProtocol = syncProtocol }) { world in
            let user = SyncWorld.newUser()
            let phone = try await world.startedDevice("phone", user: user)
            let tablet = try await world.startedDevice("tablet", user: user)
            let taskID = UUID().uuidString
            #expect(taskID != taskID.lowercased())
            try phone.writeTransaction { db in
                try db.execute(sql: "INSERT INTO tasks (id, title, user_id) VALUES (?, 'upper', ?)", arguments: [taskID, user])
                try db.execute(sql: "INSERT INTO comments (id, task_id, body) VALUES (?, ?, 'hello')", arguments: [UUID().uuidString, taskID])
            }
            try await phone.syncNow()
            try await phone.syncNow()
            #expect(try world.emulator.syncedRow(table: "tasks", id: taskID.lowercased()) != nil)
            #expect(try phone.query("SELECT * FROM tasks").count == 1)
            #expect(try phone.queryOne("SELECT title FROM tasks WHERE id = ?", params: [taskID])?["title"] as String? == "upper")

            try await tablet.syncNow()
            try tablet.execute("UPDATE tasks SET title = 'edited on the tablet' WHERE id = ?", params: [taskID.lowercased()])
            try await tablet.syncNow()
            try await phone.syncNow()
            #expect(try phone.query("SELECT * FROM tasks").count == 1)
            #expect(try phone.queryOne("SELECT title FROM tasks WHERE id = ?", params: [taskID])?["title"] as String? == "edited on the tablet")
            for device in [phone, tablet] {
                let joined = try device.query("SELECT c.body FROM comments c JOIN tasks t ON c.task_id = t.id")
                #expect(joined.count == 1)
                #expect(try device.query("SELECT * FROM comments").count == 1)
            }
            #expect(try phone.pendingChangeCount() == 0 && tablet.pendingChangeCount() == 0)
        }
    }
}

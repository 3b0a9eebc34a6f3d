import Foundation
import SelfDBEmulator
import Testing

@testable import Synchro

/// What a device makes of a `policy_rejected` write (`push: owner_only` on protocol 2): the
/// rejection kept with the server's answer, the local row back to what the server holds, the
/// other pending writes through.
@Suite("Synchro client: owner_only refusals on protocol 2")
struct OwnerOnlyClientTests {
    static func rejected(_ error: any Error, ids: Set<String>) -> Bool {
        guard case SynchroError.pushRejected(let results) = error else { return false }
        return Set(results.map { $0.id.lowercased() }) == ids && results.allSatisfy { $0.reasonCode == "policy_rejected" }
    }

    @Test("a comment on another user's task is refused: recorded, gone locally, never on the owner's devices; the rest goes through")
    func foreignChildInsert() async throws {
        try await SyncWorld.run(configure: ProtocolTwoClientTests.protocolTwo) { world in
            let alice = SyncWorld.newUser()
            let bob = SyncWorld.newUser()
            let phone = try await world.startedDevice("alice-phone", user: alice)
            let task = UUID().uuidString.lowercased()
            try phone.execute("INSERT INTO tasks (id, user_id, title) VALUES (?, ?, ?)", params: [task, alice, "alice's"])
            try await phone.syncNow()

            let intruder = try await world.startedDevice("bob-phone", user: bob)
            let planted = UUID().uuidString.lowercased()
            let own = UUID().uuidString.lowercased()
            try intruder.execute("INSERT INTO comments (id, task_id, body) VALUES (?, ?, ?)", params: [planted, task, "planted"])
            try intruder.execute("INSERT INTO tasks (id, user_id, title) VALUES (?, ?, ?)", params: [own, bob, "bob's"])
            await #expect {
                try await intruder.syncNow()
            } throws: { error in
                Self.rejected(error, ids: [planted])
            }
            #expect(try intruder.pendingChangeCount() == 0)
            #expect(try intruder.live("comments", column: "body").isEmpty, "a refused insert disappears")
            #expect(try intruder.live("tasks") == [own: "bob's"], "the other pending write went through")
            let kept = try intruder.rejectedMutations()
            #expect(kept.map(\.recordID) == [planted])
            #expect(kept.first?.code == "policy_rejected")
            #expect(kept.first?.status == "rejected_terminal")
            #expect(kept.first?.message?.contains("owner_only") == true)
            #expect(try world.emulator.syncedRow(table: "comments", id: planted) == nil)

            try await phone.syncNow()
            #expect(try phone.live("comments", column: "body").isEmpty)
            let laptop = try await world.startedDevice("alice-laptop", user: alice)
            #expect(try laptop.live("comments", column: "body").isEmpty)
            #expect(try laptop.live("tasks") == [task: "alice's"])
        }
    }

    @Test("children written before their parent go after it in one batch: a server that checks the parent takes them all")
    func childrenBeforeParentInOneBatch() async throws {
        try await SyncWorld.run(configure: ProtocolTwoClientTests.protocolTwo) { world in
            let alice = SyncWorld.newUser()
            let phone = try await world.startedDevice("alice-phone", user: alice)
            let task = UUID().uuidString.lowercased()
            let other = UUID().uuidString.lowercased()
            var comments: [String] = []
            try phone.writeTransaction { db in
                for index in 0..<3 {
                    let comment = UUID().uuidString.lowercased()
                    comments.append(comment)
                    // The key in upper case, as `UUID().uuidString` spells it.
                    try db.execute(sql: "INSERT INTO comments (id, task_id, body) VALUES (?, ?, ?)", arguments: [comment, task.uppercased(), "comment \(index)"])
                }
                try db.execute(sql: "INSERT INTO tasks (id, user_id, title) VALUES (?, ?, 'other')", arguments: [other, alice])
                try db.execute(sql: "INSERT INTO tasks (id, user_id, title) VALUES (?, ?, 'parent')", arguments: [task, alice])
            }
            try await phone.syncNow()
            #expect(try phone.pendingChangeCount() == 0)
            #expect(try phone.rejectedMutations().isEmpty)
            for comment in comments { #expect(try world.emulator.syncedRow(table: "comments", id: comment) != nil) }
            let laptop = try await world.startedDevice("alice-laptop", user: alice)
            #expect(try laptop.live("comments", column: "body").count == 3)
        }
    }

    @Test("a task given to another user is refused: the local row goes back to the server's, edits and all; the other writes go through")
    func moveRefusedAndRestored() async throws {
        try await SyncWorld.run(configure: ProtocolTwoClientTests.protocolTwo) { world in
            let alice = SyncWorld.newUser()
            let bob = SyncWorld.newUser()
            let phone = try await world.startedDevice("alice-phone", user: alice)
            let task = UUID().uuidString.lowercased()
            let kept = UUID().uuidString.lowercased()
            try phone.execute("INSERT INTO tasks (id, user_id, title) VALUES (?, ?, ?)", params: [task, alice, "alice's"])
            try phone.execute("INSERT INTO tasks (id, user_id, title) VALUES (?, ?, ?)", params: [kept, alice, "stays"])
            try await phone.syncNow()

            try phone.execute("UPDATE tasks SET user_id = ?, title = ? WHERE id = ?", params: [bob, "given away", task])
            try phone.execute("UPDATE tasks SET title = ? WHERE id = ?", params: ["edited", kept])
            let added = UUID().uuidString.lowercased()
            try phone.execute("INSERT INTO tasks (id, user_id, title) VALUES (?, ?, ?)", params: [added, alice, "new"])
            await #expect {
                try await phone.syncNow()
            } throws: { error in
                Self.rejected(error, ids: [task])
            }
            #expect(try phone.pendingChangeCount() == 0)
            #expect(try phone.live("tasks") == [task: "alice's", kept: "edited", added: "new"], "the server's row is back")
            #expect(try phone.live("tasks", column: "user_id")[task] == alice)
            #expect(try phone.rejectedMutations().map(\.code) == ["policy_rejected"])
            #expect(try world.emulator.syncedRow(table: "tasks", id: task)?.values["title"] == .string("alice's"))

            // The next cycle has nothing to mend: its scope adds up again.
            try await phone.syncNow()
            #expect(try phone.live("tasks")[task] == "alice's")
            let receiver = try await world.startedDevice("bob-phone", user: bob)
            #expect(try receiver.live("tasks").isEmpty)
        }
    }

    @Test("on a read-only table a refused update and delete get the server's row back; a refused change to a row that left the user's scope drops it")
    func refusedChangesRestored() async throws {
        let spec = try EditableSpec()
        defer { spec.remove() }
        try spec.write(
            spec.original + """

                  Region:
                    table: regions
                    sync: { shared: global }
                    columns:
                      id: { type: uuid, primaryKey: true }
                      name: { type: text, nullable: false }
                      updated_at: { type: timestamp, nullable: false }
                      deleted_at: timestamp

                """
        )
        try await SyncWorld.run(configure: {
            $0.syncProtocol = .two
            $0.syncSpecs = [spec.url]
        }) { world in
            let alice = SyncWorld.newUser()
            let north = UUID().uuidString.lowercased()
            let south = UUID().uuidString.lowercased()
            try world.emulator.writeSyncedRow(table: "regions", values: ["id": .string(north), "name": .string("North")])
            try world.emulator.writeSyncedRow(table: "regions", values: ["id": .string(south), "name": .string("South")])
            let phone = try await world.startedDevice("alice-phone", user: alice)
            #expect(try phone.live("regions", column: "name") == [north: "North", south: "South"])

            // The app stamps its own, later, time: the server's row comes back all the same.
            try phone.execute("UPDATE regions SET name = ?, updated_at = ? WHERE id = ?", params: ["Renamed", "2099-01-01T00:00:00.000Z", north])
            try phone.execute("DELETE FROM regions WHERE id = ?", params: [south])
            await #expect {
                try await phone.syncNow()
            } throws: { error in
                Self.rejected(error, ids: [north, south])
            }
            #expect(try phone.pendingChangeCount() == 0)
            let regions = try phone.live("regions", column: "name")
            #expect(regions == [north: "North", south: "South"], "both rows are the server's again: \(regions)")
            #expect(try Set(phone.rejectedMutations().map(\.recordID)) == [north, south])
            let restored = try phone.queryOne("SELECT updated_at FROM regions WHERE id = ?", params: [north])?["updated_at"] as String?
            let serverTime = try world.emulator.syncedRow(table: "regions", id: north)?.values["updated_at"]
            #expect(restored.map { SyncedRow.Value.string($0) } == serverTime, "the server's row, its time included")

            // A task handed to Bob by the operator while Alice's phone renames it offline: the
            // rename reaches a row that is Bob's now, and Alice's phone drops it.
            let bob = SyncWorld.newUser()
            let task = UUID().uuidString.lowercased()
            try phone.execute("INSERT INTO tasks (id, user_id, title) VALUES (?, ?, ?)", params: [task, alice, "handed over"])
            try await phone.syncNow()
            try world.emulator.writeSyncedRow(table: "tasks", values: ["id": .string(task), "user_id": .string(bob)])
            try phone.execute("UPDATE tasks SET title = ? WHERE id = ?", params: ["renamed", task])
            await #expect {
                try await phone.syncNow()
            } throws: { error in
                Self.rejected(error, ids: [task])
            }
            #expect(try phone.live("tasks").isEmpty, "Bob's row is not on Alice's phone")
            #expect(try world.emulator.syncedRow(table: "tasks", id: task)?.values["title"] == .string("handed over"))
            #expect(try phone.pendingChangeCount() == 0)
        }
    }
}

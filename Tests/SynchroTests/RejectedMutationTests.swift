import Foundation
import SelfDBEmulator
import SelfDBRuntime
import Synchro
import Testing

/// Rejected changes on protocol 2: kept in the official client's `_synchro_rejected_mutations`,
/// reported live, and never allowed to block the queue — a batch Synchro 0.3.0 rolls back whole
/// (500) is split until the change it fails on is alone (the official client stops at the 500
/// and fails on every cycle after) — and a server column whose type changed never empties the
/// queue (the official client drops the pending writes).
@Suite("Rejected mutations", .serialized)
struct RejectedMutationTests {
    /// The official client's columns (`synchro_v5_rejected_mutations`), in order.
    static let officialColumns = [
        "mutation_id", "table_name", "record_id", "status", "code", "message", "server_row_json", "server_version", "created_at", "updated_at",
    ]

    @Test("a batch the server rolls back whole is split until the bad change is alone: it is set aside, the rest go through")
    func poisonBatchIsIsolated() async throws {
        try await SyncWorld.run(configure: ProtocolTwoClientTests.protocolTwo) { world in
            let user = SyncWorld.newUser()
            let device = try await world.startedDevice("writer", user: user)
            let reported = Locked<[MutationRejection]>([])
            let subscription = device.onMutationRejected { rejection in reported.withLock { $0.append(rejection) } }
            defer { subscription.cancel() }
            var good: [String] = []
            for index in 0..<7 {
                let id = UUID().uuidString.lowercased()
                good.append(id)
                try device.execute("INSERT INTO tasks (id, user_id, title) VALUES (?, ?, ?)", params: [id, user, "good \(index)"])
            }
            // An integer column given text: the server's INSERT fails, and with it the batch.
            let bad = UUID().uuidString.lowercased()
            try device.execute("INSERT INTO tasks (id, user_id, title, priority) VALUES (?, ?, ?, ?)", params: [bad, user, "bad", "high"])
            for index in 7..<10 {
                let id = UUID().uuidString.lowercased()
                good.append(id)
                try device.execute("INSERT INTO tasks (id, user_id, title) VALUES (?, ?, ?)", params: [id, user, "good \(index)"])
            }

            await #expect {
                try await device.syncNow()
            } throws: { error in
                guard case SynchroError.pushRejected(let results) = error else { return false }
                return results.map(\.id) == [bad] && results.first?.reasonCode == "batch_rolled_back"
            }
            #expect(try device.pendingChangeCount() == 0)
            for id in good { #expect(try world.emulator.syncedRow(table: "tasks", id: id) != nil) }
            #expect(try world.emulator.syncedRow(table: "tasks", id: bad) == nil)
            // The app keeps its row to mend, as the official client keeps every rejected row.
            #expect(try device.live("tasks")[bad] == "bad")

            let kept = try device.rejectedMutations()
            #expect(kept.map(\.recordID) == [bad])
            #expect(kept.first?.status == "rejected_terminal")
            #expect(kept.first?.code == "batch_rolled_back")
            #expect(kept.first?.mutationID.hasPrefix("tasks:\(bad):create:") == true)
            #expect(kept.first?.message?.contains("500") == true)
            #expect(reported.current == kept)

            let other = try await world.startedDevice("reader", user: user)
            #expect(try Set(other.live("tasks").keys) == Set(good))

            // A cycle with nothing to settle keeps the row while its rejection stands; once the
            // app clears the rejection, the next cycle removes the row, which no scope holds.
            try await device.syncNow()
            #expect(try device.live("tasks")[bad] == "bad")
            try device.execute("DELETE FROM _synchro_rejected_mutations")
            try await device.syncNow()
            #expect(try device.live("tasks")[bad] == nil)
            #expect(try Set(device.live("tasks").keys) == Set(good))
        }
    }

    @Test("a server that fails every push sets nothing aside: the changes stay pending and the cycle fails")
    func failingServerSetsNothingAside() async throws {
        try await SyncWorld.run(configure: ProtocolTwoClientTests.protocolTwo) { world in
            let user = SyncWorld.newUser()
            let device = try await world.startedDevice("writer", user: user)
            for index in 0..<5 {
                try device.execute("INSERT INTO tasks (id, user_id, title) VALUES (?, ?, ?)", params: [UUID().uuidString, user, "t\(index)"])
            }
            world.emulator.injectFault(.internalServerError, method: "POST", path: "/sync/push", count: 1000)
            await #expect {
                try await device.syncNow()
            } throws: { error in
                guard case SynchroError.serverError(500, _) = error else { return false }
                return true
            }
            #expect(try device.pendingChangeCount() == 5)
            #expect(try device.rejectedMutations().isEmpty)
            // Requests stop soon: the top batch twice, one half per level, two changes alone.
            let pushes = world.emulator.recordedRequests().filter { $0.path == "/sync/push" }.count
            #expect(pushes <= 10)

            world.emulator.clearFaults()
            try await device.syncNow()
            #expect(try device.pendingChangeCount() == 0)
            #expect(try world.emulator.syncedRowCount(table: "tasks", userID: user) == 5)
        }
    }

    @Test("conflicts and terminal rejections are kept in the official table, readable and clearable with SQL")
    func officialTable() async throws {
        try await SyncWorld.run(configure: ProtocolTwoClientTests.protocolTwo) { world in
            let user = SyncWorld.newUser()
            let first = try await world.startedDevice("first", user: user)
            let second = try await world.startedDevice("second", user: user)
            let columns = try first.query("SELECT name FROM pragma_table_info('_synchro_rejected_mutations') ORDER BY cid").map { $0["name"] as String }
            #expect(columns == Self.officialColumns)

            let id = UUID().uuidString.lowercased()
            try first.execute("INSERT INTO tasks (id, user_id, title) VALUES (?, ?, ?)", params: [id, user, "original"])
            try await first.syncNow()
            try await second.syncNow()
            // The second device edits first but pushes last: the server's newer version wins.
            try second.execute("UPDATE tasks SET title = ? WHERE id = ?", params: ["older edit", id])
            try await Task.sleep(for: .milliseconds(20))
            try first.execute("UPDATE tasks SET title = ? WHERE id = ?", params: ["newer edit", id])
            try await first.syncNow()
            let conflicts = Locked(0)
            let subscription = second.onConflict { _ in conflicts.withLock { $0 += 1 } }
            defer { subscription.cancel() }
            try await second.syncNow()

            #expect(conflicts.current == 1)
            let row = try #require(try second.queryOne("SELECT * FROM _synchro_rejected_mutations"))
            #expect(row["status"] as String == "conflict")
            #expect(row["code"] as String == "version_conflict")
            #expect(row["record_id"] as String == id)
            #expect((row["server_row_json"] as String?)?.contains("newer edit") == true)
            #expect(row["server_version"] as String? != nil)
            #expect(try second.live("tasks")[id] == "newer edit")

            try second.execute("DELETE FROM _synchro_rejected_mutations")
            #expect(try second.rejectedMutations().isEmpty)
        }
    }

    @Test(
        "a server column whose type changed keeps every pending write: sent after the migration, or recorded with its reason",
        arguments: [SyncPushWriteErrors.rollBackBatch, .rejectMutation]
    )
    func columnTypeChange(_ writeErrors: SyncPushWriteErrors) async throws {
        let spec = try EditableSpec()
        defer { spec.remove() }
        try await SyncWorld.run(configure: {
            $0.syncProtocol = .two
            $0.syncSpecs = [spec.url]
            $0.syncPushWriteErrors = writeErrors
        }) { world in
            let user = SyncWorld.newUser()
            let device = try await world.startedDevice("migrating", user: user)
            let kept = UUID().uuidString.lowercased()
            try device.execute("INSERT INTO tasks (id, user_id, title) VALUES (?, ?, ?)", params: [kept, user, "synced"])
            try device.execute("CREATE INDEX tasks_by_notes ON tasks(notes)")
            try await device.syncNow()

            // Offline: one write the new type cannot hold, one it can.
            try device.execute("UPDATE tasks SET notes = ? WHERE id = ?", params: ["seven", kept])
            let added = UUID().uuidString.lowercased()
            try device.execute("INSERT INTO tasks (id, user_id, title, notes) VALUES (?, ?, ?, ?)", params: [added, user, "new", "12"])
            #expect(try device.pendingChangeCount() == 2)

            try spec.change("      notes: text\n", to: "      notes: integer\n")
            try await world.restartEmulator()
            await #expect {
                try await device.syncNow()
            } throws: { error in
                guard case SynchroError.pushRejected(let results) = error else { return false }
                return results.map(\.id) == [kept]
            }

            #expect(try device.pendingChangeCount() == 0)
            let notes = try #require(try device.queryOne("SELECT type FROM pragma_table_info('tasks') WHERE name = 'notes'"))
            #expect(notes["type"] as String == "INTEGER")
            #expect(try device.queryOne("SELECT typeof(notes) AS kind FROM tasks WHERE id = ?", params: [added])?["kind"] as String? == "integer")
            #expect(try device.queryOne("SELECT 1 AS found FROM sqlite_master WHERE name = 'tasks_by_notes'") != nil)
            #expect(try world.emulator.syncedRow(table: "tasks", id: added)?.values["notes"] == .int(12))
            #expect(try world.emulator.syncedRow(table: "tasks", id: kept)?.values["notes"] == .null)

            let rejection = try #require(try device.rejectedMutations().first)
            #expect(rejection.recordID == kept)
            #expect(rejection.code == (writeErrors == .rollBackBatch ? "batch_rolled_back" : "validation_failed"))
            #expect(rejection.message?.isEmpty == false)
            #expect(try device.queryOne("SELECT notes FROM tasks WHERE id = ?", params: [kept])?["notes"] as String? == "seven")

            // The table still syncs after the rebuild: its triggers are back.
            try device.execute("UPDATE tasks SET notes = ? WHERE id = ?", params: [3, kept])
            try await device.syncNow()
            #expect(try world.emulator.syncedRow(table: "tasks", id: kept)?.values["notes"] == .int(3))
        }
    }
}

import Foundation
import Testing

@testable import EmulatorSupport
@testable import SelfDBEmulator
@testable import SynchroEmulator

@Suite("Synchro server: push")
struct SynchroPushTests {
    @Test func createUpdateDeleteWithTheirOutcomes() async throws {
        try await withSyncEmulator { emulator, client in
            try await client.register()
            let id = UUID().uuidString  // upper case: the server keeps it lower-cased
            var data = Change.task("write tests")
            data["user_id"] = "somebody-else"
            data["priority"] = 3
            let created = try await client.pushOne(Change.create("tasks", id, data))
            #expect(created.outcome == "applied")
            #expect(created["id"] == .string(id), "results echo the id as sent")
            #expect(created["operation"] == "create")
            let createdAt = try #require(created["server_updated_at"]?.stringValue.flatMap(SyncTimestamp.init(parsing:)))

            let row = try #require(try emulator.syncedRow(table: "tasks", id: id))
            #expect(row.id == id.lowercased())
            #expect(row.values["user_id"] == .string("user-a"), "the owner column is forced to the caller")
            #expect(row.values["priority"] == .int(3))
            #expect(row.values["done"] == .bool(false))
            #expect(row.values["notes"] == .null)
            #expect(!row.isDeleted)

            let duplicate = try await client.pushOne(Change.create("tasks", id.lowercased(), Change.task("again")))
            #expect(duplicate.outcome == "conflict/record_exists")
            #expect(duplicate["server_version"]?["id"] == .string(id.lowercased()))
            #expect(duplicate["server_version"]?["data"]?["title"] == "write tests")

            var changes = Change.task("write more tests", done: true)
            changes["user_id"] = "hijack"
            changes["id"] = "other-id"
            changes["updated_at"] = "2099-01-01T00:00:00Z"
            changes["unknown_local_column"] = 1
            let updated = try await client.pushOne(Change.update("tasks", id, changes, base: createdAt.text))
            #expect(updated.outcome == "applied")
            let updatedAt = try #require(updated["server_updated_at"]?.stringValue.flatMap(SyncTimestamp.init(parsing:)))
            #expect(updatedAt > createdAt)
            let afterUpdate = try #require(try emulator.syncedRow(table: "tasks", id: id))
            #expect(afterUpdate.values["title"] == .string("write more tests"))
            #expect(afterUpdate.values["done"] == .bool(true))
            #expect(afterUpdate.values["user_id"] == .string("user-a"), "protected columns are ignored on update")
            #expect(afterUpdate.values["id"] == .string(id.lowercased()))
            #expect(afterUpdate.values["updated_at"] == .string(updatedAt.text))

            let deleted = try await client.pushOne(Change.delete("tasks", id))
            #expect(deleted.outcome == "applied")
            let deletedAt = try #require(deleted["server_deleted_at"]?.stringValue)
            #expect(try emulator.syncedRow(table: "tasks", id: id)?.isDeleted == true)
            #expect(try emulator.syncedRowCount(table: "tasks", userID: "user-a") == 0)
            #expect(try emulator.syncedRowCount(table: "tasks", userID: "user-a", includeDeleted: true) == 1)

            let again = try await client.pushOne(Change.delete("tasks", id))
            #expect(again.outcome == "applied/already_deleted")
            #expect(again["server_deleted_at"] == .string(deletedAt))

            let updateDeleted = try await client.pushOne(Change.update("tasks", id, Change.task("too late")))
            #expect(updateDeleted.outcome == "conflict/record_deleted")
            #expect(updateDeleted["server_version"]?["deleted_at"] == .string(deletedAt))

            let missing = UUID().uuidString
            #expect(try await client.pushOne(Change.update("tasks", missing, Change.task("x"))).outcome == "rejected_terminal/record_not_found")
            #expect(try await client.pushOne(Change.delete("tasks", missing)).outcome == "rejected_terminal/record_not_found")
        }
    }

    @Test func createOnASoftDeletedRowResurrectsIt() async throws {
        try await withSyncEmulator { emulator, client in
            try await client.register()
            let id = UUID().uuidString.lowercased()
            _ = try await client.pushOne(Change.create("tasks", id, Change.task("first life")))
            _ = try await client.pushOne(Change.delete("tasks", id))
            let reborn = try await client.pushOne(Change.create("tasks", id, Change.task("second life")))
            #expect(reborn.outcome == "applied")
            #expect(reborn["server_updated_at"]?.stringValue != nil)
            let row = try #require(try emulator.syncedRow(table: "tasks", id: id))
            #expect(!row.isDeleted)
            #expect(row.values["title"] == .string("second life"))
            #expect(row.values["deleted_at"] == .null)

            // A resurrection older than the delete loses, like any stale write.
            _ = try await client.pushOne(Change.delete("tasks", id))
            let stale = try await client.pushOne(Change.create("tasks", id, Change.task("zombie"), at: Change.longAgo))
            #expect(stale.outcome == "conflict/server_won_conflict")
            #expect(try emulator.syncedRow(table: "tasks", id: id)?.isDeleted == true)
        }
    }

    @Test func perChangeRejections() async throws {
        try await withSyncEmulator { _, client in
            try await client.register()
            let response = try await client.push([
                Change.create("nope", "1", Change.task("x")),
                Change.change("tasks", "2", "upsert", data: .object(Change.task("x")), clientUpdatedAt: Change.longAgo),
                Change.create("tasks", "3", JSONObject([("done", true)])),  // title is required
                Change.create("tasks", "4", JSONObject([("title", 5)])),
                Change.change("tasks", "5", "create", data: .null, clientUpdatedAt: Change.longAgo),
                Change.create("tasks", "", Change.task("x")),
                Change.create("tasks", "7", JSONObject([("title", "ok"), ("done", 1), ("priority", 2.0), ("created_at", "2024-05-01T10:00:00+02:00")])),
            ])
            #expect(response.status == 200)
            let rejected = try #require(response.json?["rejected"]?.arrayValue)
            #expect(
                rejected.map(\.outcome) == [
                    "rejected_terminal/table_not_registered", "rejected_terminal/invalid_operation",
                    "rejected_terminal/invalid_data", "rejected_terminal/invalid_data", "rejected_terminal/invalid_data",
                    "rejected_terminal/invalid_data",
                ]
            )
            #expect(rejected[2]["message"] == "column 'title' is required")
            #expect(rejected.allSatisfy { $0["message"]?.stringValue != nil })
            let accepted = try #require(response.json?["accepted"]?.arrayValue)
            #expect(accepted.map(\.outcome) == ["applied"], "0/1 booleans, integral floats and offsets are accepted")
            #expect(response.json?["checkpoint"] == 0)
            #expect(response.json?["server_time"]?.stringValue != nil)
            #expect(response.json?["schema_hash"] == .string(client.schemaHash))
        }
    }

    @Test func storedValuesAreNormalized() async throws {
        try await withSyncEmulator { emulator, client in
            try await client.register()
            _ = try await client.pushOne(
                Change.create("tasks", "T-1", JSONObject([("title", "ok"), ("done", 1), ("priority", 2.0), ("created_at", "2024-05-01T10:00:00.123456+02:00")]))
            )
            let row = try #require(try emulator.syncedRow(table: "tasks", id: "t-1"))
            #expect(row.values["done"] == .bool(true))
            #expect(row.values["priority"] == .int(2))
            #expect(row.values["created_at"] == .string("2024-05-01T08:00:00.123Z"))
        }
    }

    @Test func readOnlyTablesRefusePushes() async throws {
        let directory = SyncFixture.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let spec = try SyncFixture.writeSpec(
            """
            tables:
              Announcement:
                table: announcements
                sync: { owner: author, push: disabled }
                columns:
                  id: { type: text, primaryKey: true }
                  author: text
                  body: text
                  updated_at: timestamp
                  deleted_at: timestamp
            """,
            in: directory
        )
        try await withSyncEmulator(configure: { $0.syncSpecs.append(spec) }) { emulator, client in
            let tables = try await client.send("GET", "/sync/tables")
            let announcements = tables.json?["tables"]?.arrayValue?.first { $0["table_name"] == "announcements" }
            #expect(announcements?["push_policy"] == "disabled")
            var current = client
            current.schemaHash = try #require(emulator.syncSchema?.hash)
            try await current.register()
            let refused = try await current.pushOne(Change.create("announcements", "a1", JSONObject([("body", "hi")])))
            #expect(refused.outcome == "rejected_terminal/table_read_only")
            #expect(try emulator.syncedRowCount(table: "announcements") == 0)
        }
    }

    @Test func usersAreIsolated() async throws {
        try await withSyncEmulator { emulator, alice in
            let bob = try alice.asUser("user-b", emulator: emulator)
            try await alice.register()
            try await bob.register()
            let id = UUID().uuidString.lowercased()
            _ = try await alice.pushOne(Change.create("tasks", id, Change.task("alice's")))

            #expect(try await bob.pushOne(Change.update("tasks", id, Change.task("bob was here"))).outcome == "rejected_terminal/record_not_found")
            #expect(try await bob.pushOne(Change.delete("tasks", id)).outcome == "rejected_terminal/record_not_found")
            let taken = try await bob.pushOne(Change.create("tasks", id, Change.task("mine now")))
            #expect(taken.outcome == "rejected_terminal/invalid_data")
            #expect(taken["server_version"] == nil, "nothing of alice's row leaks")
            #expect(try emulator.syncedRow(table: "tasks", id: id)?.values["title"] == .string("alice's"))

            _ = try await bob.fullSnapshot(limit: 100)
            let bobsPull = try await bob.pull(checkpoint: 0)
            #expect(bobsPull.json?["changes"] == [])
            let bobsSnapshot = try await bob.fullSnapshot(limit: 100)
            #expect(bobsSnapshot.records.isEmpty)
            let alicesSnapshot = try await alice.fullSnapshot(limit: 100)
            #expect(alicesSnapshot.records.count == 1)
            #expect(try emulator.syncedRowCount(table: "tasks", userID: "user-a") == 1)
            #expect(try emulator.syncedRowCount(table: "tasks", userID: "USER-B") == 0)
        }
    }

    @Test func childrenBelongToTheOwnerOfTheirParent() async throws {
        try await withSyncEmulator { emulator, alice in
            let bob = try alice.asUser("user-b", emulator: emulator)
            try await alice.register()
            try await bob.register()
            let task = UUID().uuidString
            _ = try await alice.pushOne(Change.create("tasks", task, Change.task("parent")))

            let comment = UUID().uuidString.lowercased()
            let added = try await alice.pushOne(Change.create("comments", comment, JSONObject([("task_id", .string(task)), ("body", "looks good")])))
            #expect(added.outcome == "applied")
            let stored = try #require(try emulator.syncedRow(table: "comments", id: comment))
            #expect(stored.ownerID == "user-a")
            #expect(stored.values["task_id"] == .string(task.lowercased()), "the parent key is stored lower-cased")
            #expect(stored.values["status"] == .string("open"), "the spec default applies")

            let foreign = try await bob.pushOne(Change.create("comments", UUID().uuidString, JSONObject([("task_id", .string(task)), ("body", "sneaky")])))
            #expect(foreign.outcome == "rejected_terminal/invalid_data")
            let orphan = try await alice.pushOne(Change.create("comments", UUID().uuidString, JSONObject([("task_id", .string(UUID().uuidString)), ("body", "lost")])))
            #expect(orphan.outcome == "rejected_terminal/invalid_data")
            let keyless = try await alice.pushOne(Change.create("comments", UUID().uuidString, JSONObject([("body", "no task")])))
            #expect(keyless.outcome == "rejected_terminal/invalid_data")

            // The parent key is protected: an update cannot move a comment to another task.
            let otherTask = UUID().uuidString.lowercased()
            _ = try await alice.pushOne(Change.create("tasks", otherTask, Change.task("other")))
            let moved = try await alice.pushOne(Change.update("comments", comment, JSONObject([("task_id", .string(otherTask)), ("body", "edited")])))
            #expect(moved.outcome == "applied")
            #expect(try emulator.syncedRow(table: "comments", id: comment)?.values["task_id"] == .string(task.lowercased()))
            #expect(try emulator.syncedRow(table: "comments", id: comment)?.values["body"] == .string("edited"))

            #expect(try await bob.pushOne(Change.update("comments", comment, JSONObject([("body", "mine")]))).outcome == "rejected_terminal/record_not_found")
            #expect(try emulator.syncedRowCount(table: "comments", userID: "user-a") == 1)
        }
    }

    @Test func retryableFailures() async throws {
        try await withSyncEmulator { emulator, client in
            try await client.register()
            let id = UUID().uuidString.lowercased()
            try emulator.injectSyncPushFailure(.writeFailed)
            #expect(try await client.pushOne(Change.create("tasks", id, Change.task("x"))).outcome == "rejected_retryable/create_failed")
            #expect(try emulator.syncedRow(table: "tasks", id: id) == nil, "a failed write leaves nothing behind")
            #expect(try await client.pushOne(Change.create("tasks", id, Change.task("x"))).outcome == "applied")

            try emulator.injectSyncPushFailure(.writeFailed)
            #expect(try await client.pushOne(Change.update("tasks", id, Change.task("y"))).outcome == "rejected_retryable/update_failed")
            try emulator.injectSyncPushFailure(.writeFailed)
            #expect(try await client.pushOne(Change.delete("tasks", id)).outcome == "rejected_retryable/delete_failed")
            #expect(try emulator.syncedRow(table: "tasks", id: id)?.isDeleted == false)
            #expect(try await client.pushOne(Change.delete("tasks", id)).outcome == "applied")
            try emulator.injectSyncPushFailure(.writeFailed)
            #expect(try await client.pushOne(Change.create("tasks", id, Change.task("z"))).outcome == "rejected_retryable/resurrection_failed")
            try emulator.injectSyncPushFailure(.internalError)
            #expect(try await client.pushOne(Change.create("tasks", UUID().uuidString, Change.task("z"))).outcome == "rejected_retryable/internal_error")

            // Only the failed change is affected; the log holds exactly the applied writes.
            try emulator.injectSyncPushFailure(.writeFailed)
            let batch = try await client.push([Change.create("tasks", "b1", Change.task("1")), Change.create("tasks", "b2", Change.task("2"))])
            #expect(batch.json?["rejected"]?.arrayValue?.map(\.outcome) == ["rejected_retryable/create_failed"])
            #expect(batch.json?["accepted"]?.arrayValue?.map { $0["id"] } == ["b2"])
            #expect(try emulator.syncLogMaximumSequence() == 3)
        }
    }
}

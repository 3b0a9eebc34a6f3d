import Foundation
import Testing

@testable import EmulatorSupport
@testable import SelfDBEmulator

@Suite("Synchro server: pull and snapshot")
struct SynchroPullTests {
    /// Creates `count` tasks in batches; returns their ids (lower-cased) in push order.
    private func seedTasks(_ count: Int, client: SyncTestClient) async throws -> [String] {
        var ids: [String] = []
        for start in stride(from: 0, to: count, by: 100) {
            let batch = (start..<min(count, start + 100)).map { index in
                (String(format: "task-%04d", index), Change.create("tasks", String(format: "TASK-%04d", index), Change.task("task \(index)")))
            }
            let response = try await client.push(batch.map(\.1))
            try #require(response.json?["accepted"]?.arrayValue?.count == batch.count, "\(response.text)")
            ids += batch.map(\.0)
        }
        return ids
    }

    @Test func firstPullAsksForAnInitialSnapshot() async throws {
        try await withSyncEmulator { _, client in
            try await client.register()
            let pull = try await client.pull(checkpoint: 0)
            #expect(pull.status == 200)
            #expect(pull.json?["snapshot_required"] == true)
            #expect(pull.json?["snapshot_reason"] == "initial_sync_required")
            #expect(pull.json?["changes"] == [])
            #expect(pull.json?["deletes"] == [])
            #expect(pull.json?["checkpoint"] == 0)
            #expect(pull.json?["has_more"] == false)

            // After a snapshot (even of nothing) checkpoint 0 is a normal pull.
            let snapshot = try await client.fullSnapshot(limit: 100)
            #expect(snapshot.checkpoint == 0)
            let again = try await client.pull(checkpoint: 0)
            #expect(again.json?["snapshot_required"] == false)
            #expect(again.json?["snapshot_reason"] == nil)
        }
    }

    @Test func pullPagesThroughTheLogWithCheckpoints() async throws {
        try await withSyncEmulator { emulator, writer in
            try await writer.register()
            let reader = writer.device("reader")
            try await reader.register()
            _ = try await reader.fullSnapshot(limit: 100)
            let ids = try await seedTasks(250, client: writer)

            var checkpoint: Int64 = 0
            var received: [String] = []
            var pages: [(count: Int, checkpoint: Int64, hasMore: Bool)] = []
            while true {
                let page = try await reader.pull(checkpoint: checkpoint, limit: 100)
                try #require(page.status == 200, "\(page.text)")
                let changes = try #require(page.json?["changes"]?.arrayValue)
                received += changes.compactMap { $0["id"]?.stringValue }
                let next = try #require(page.json?["checkpoint"]?.intValue)
                let hasMore = try #require(page.json?["has_more"]?.boolValue)
                pages.append((changes.count, next, hasMore))
                #expect(next >= checkpoint)
                checkpoint = next
                if !hasMore { break }
            }
            #expect(pages.map(\.count) == [100, 100, 50])
            #expect(pages.map(\.checkpoint) == [100, 200, 250], "the checkpoint is the page's highest seq")
            #expect(pages.map(\.hasMore) == [true, true, false])
            #expect(received == ids, "oldest first, ids lower-cased")
            #expect(try emulator.syncLogMaximumSequence() == 250)

            let first = try await reader.pull(checkpoint: 0, limit: 1)
            let record = try #require(first.json?["changes"]?.arrayValue?.first)
            #expect(record["table_name"] == "tasks")
            #expect(record["data"]?["title"] == "task 0")
            #expect(record["data"]?["user_id"] == "user-a")
            #expect(record["updated_at"] == record["data"]?["updated_at"])
            #expect(record["deleted_at"] == nil)

            // Nothing new: the checkpoint stays.
            let idle = try await reader.pull(checkpoint: 250)
            #expect(idle.json?["changes"] == [])
            #expect(idle.json?["checkpoint"] == 250)
            #expect(idle.json?["has_more"] == false)
            // The limit is capped at 1000; a non-positive one means the default of 100.
            #expect(try await reader.pull(checkpoint: 0, limit: 5_000).json?["changes"]?.arrayValue?.count == 250)
            #expect(try await reader.pull(checkpoint: 0, limit: 0).json?["changes"]?.arrayValue?.count == 100)
            // Only the tables asked for.
            #expect(try await reader.pull(checkpoint: 0, tables: ["comments"]).json?["changes"] == [])
            #expect(try await reader.pull(checkpoint: 0, tables: ["tasks"]).json?["changes"]?.arrayValue?.count == 100)
            #expect(try await reader.pull(checkpoint: 0, tables: []).json?["changes"]?.arrayValue?.count == 100)
        }
    }

    @Test func pullSendsTheLatestStatePerRecordAndDeletesSeparately() async throws {
        try await withSyncEmulator { _, client in
            try await client.register()
            _ = try await client.fullSnapshot(limit: 10)
            let kept = "kept"
            let gone = "gone"
            _ = try await client.push([
                Change.create("tasks", kept, Change.task("v1")), Change.create("tasks", gone, Change.task("doomed")),
            ])
            _ = try await client.pushOne(Change.update("tasks", kept, Change.task("v2")))
            _ = try await client.pushOne(Change.delete("tasks", gone))

            let pull = try await client.pull(checkpoint: 0)
            let changes = try #require(pull.json?["changes"]?.arrayValue)
            #expect(changes.count == 1, "one entry per record, read live")
            #expect(changes.first?["data"]?["title"] == "v2")
            #expect(pull.json?["deletes"] == [["id": "gone", "table_name": "tasks"]])
            #expect(pull.json?["checkpoint"] == 4)

            // A page that ends before the delete sends the row as it is now (deleted_at set).
            let partial = try await client.pull(checkpoint: 0, limit: 2)
            let rows = try #require(partial.json?["changes"]?.arrayValue)
            #expect(rows.first { $0["id"] == "gone" }?["deleted_at"]?.stringValue != nil)
            #expect(partial.json?["has_more"] == true)
        }
    }

    @Test func compactionForcesASnapshotForOlderCheckpoints() async throws {
        try await withSyncEmulator { emulator, client in
            try await client.register()
            _ = try await client.fullSnapshot(limit: 10)
            _ = try await seedTasks(5, client: client)
            let early = try await client.pull(checkpoint: 0, limit: 2)
            #expect(early.json?["checkpoint"] == 2)

            let floor = try emulator.compactSyncLog(through: 3)
            #expect(floor == 3)
            let behind = try await client.pull(checkpoint: 2)
            #expect(behind.json?["snapshot_required"] == true)
            #expect(behind.json?["snapshot_reason"] == "checkpoint_before_retention")
            #expect(behind.json?["checkpoint"] == 2)
            let atFloor = try await client.pull(checkpoint: 3)
            #expect(atFloor.json?["snapshot_required"] == false)
            #expect(atFloor.json?["changes"]?.arrayValue?.count == 2)

            // Compacting everything keeps the sequence: a new snapshot starts at the floor.
            #expect(try emulator.compactSyncLog() == 5)
            #expect(try await client.pull(checkpoint: 4).json?["snapshot_reason"] == "checkpoint_before_retention")
            let rebuilt = try await client.fullSnapshot(limit: 2)
            #expect(rebuilt.checkpoint == 5)
            #expect(rebuilt.records.count == 5)
            #expect(try await client.pull(checkpoint: 5).json?["snapshot_required"] == false)
            _ = try await client.pushOne(Change.create("tasks", "after", Change.task("after compaction")))
            let next = try await client.pull(checkpoint: 5)
            #expect(next.json?["checkpoint"] == 6, "sequence numbers are never reused")
        }
    }

    @Test func snapshotPagesToCompletion() async throws {
        try await withSyncEmulator { emulator, client in
            try await client.register()
            let ids = try await seedTasks(7, client: client)
            for (index, task) in ids.prefix(3).enumerated() {
                _ = try await client.pushOne(Change.create("comments", "comment-\(index)", JSONObject([("task_id", .string(task)), ("body", "c")])))
            }
            _ = try await client.pushOne(Change.delete("tasks", ids[6]))
            _ = try await client.pushOne(Change.delete("comments", "comment-2"))
            let maximum = try emulator.syncLogMaximumSequence()

            let first = try await client.snapshot(limit: 4)
            #expect(first.status == 200)
            #expect(first.json?["has_more"] == true)
            #expect(first.json?["checkpoint"] == .int(maximum))
            let cursor = try #require(first.json?["cursor"])
            #expect(cursor == ["checkpoint": .int(maximum), "table_idx": 0, "after_id": "task-0003"])

            // Writes after the first page do not move the snapshot's checkpoint.
            _ = try await client.pushOne(Change.create("tasks", "late", Change.task("late")))
            var records = first.json?["records"]?.arrayValue ?? []
            var next: JSONValue? = cursor
            var lastPage: APIResponse?
            while let position = next {
                let page = try await client.snapshot(cursor: position, limit: 4)
                #expect(page.json?["checkpoint"] == .int(maximum))
                records += page.json?["records"]?.arrayValue ?? []
                next = page.json?["cursor"]
                lastPage = page
            }
            #expect(lastPage?.json?["has_more"] == false)
            #expect(lastPage?.json?["cursor"] == nil)
            // Parents first, each table by id, soft-deleted rows skipped.
            let keys = records.compactMap { record -> String? in
                guard let table = record["table_name"]?.stringValue, let id = record["id"]?.stringValue else { return nil }
                return "\(table)/\(id)"
            }
            // "late" sorts before the cursor, so this snapshot does not see it; the pull does.
            #expect(keys == ["tasks/task-0000", "tasks/task-0001", "tasks/task-0002", "tasks/task-0003", "tasks/task-0004", "tasks/task-0005", "comments/comment-0", "comments/comment-1"])
            #expect(records.allSatisfy { $0["deleted_at"] == nil })

            // The last page set the client's checkpoint: it pulls from there, and registration reports it.
            #expect(try await client.register().json?["checkpoint"] == .int(maximum))
            let pull = try await client.pull(checkpoint: maximum)
            #expect(pull.json?["changes"]?.arrayValue?.compactMap { $0["id"]?.stringValue } == ["late"])
        }
    }
}

import Foundation
import Testing

@testable import EmulatorSupport
@testable import SelfDBEmulator
@testable import SynchroEmulator

/// `push: owner_only` (the default for `owner` and `parent` tables): no user writes another
/// user's rows, on either protocol. Protocol 2 answers `policy_rejected`, as the operator's
/// `synchro_write_protect` hook would; protocol 1 answers as the 0.1 server does (the owner
/// forced to the caller, `invalid_data` for a foreign parent, `record_not_found` for a foreign
/// row, the owner and parent key of an update ignored). Every case checks the stored row.
@Suite("Synchro: owner_only pushes, refused for rows of other users")
struct OwnerOnlyPushTests {
    static let userA = ProtocolTwoServerTests.userA
    static let userB = ProtocolTwoServerTests.userB

    /// Two users on protocol 2, each with a task and a comment on it.
    struct World {
        var emulator: SelfDBEmulator
        var a: ProtocolTwoClient
        var b: ProtocolTwoClient
        let taskA = UUID().uuidString.lowercased()
        let commentA = UUID().uuidString.lowercased()
        let taskB = UUID().uuidString.lowercased()
        let commentB = UUID().uuidString.lowercased()

        func row(_ table: String, _ id: String) throws -> SyncedRow? {
            try emulator.syncedRow(table: table, id: id)
        }
    }

    static func withWorld(spec: URL? = nil, _ body: (inout World) async throws -> Void) async throws {
        try await withProtocolTwoEmulator(configure: { configuration in
            if let spec { configuration.syncSpecs = [spec] }
        }) { emulator, fresh in
            var a = fresh
            var b = try await ProtocolTwoClient(try fresh.http.asUser(userB, emulator: emulator))
            try await a.connect()
            try await b.connect()
            var world = World(emulator: emulator, a: a, b: b)
            for (client, task, note, user) in [(a, world.taskA, world.commentA, userA), (b, world.taskB, world.commentB, userB)] {
                let response = try await client.push([Mutation2.task(task, user: user, title: "task of \(user)"), comment(note, on: task, body: "mine")])
                #expect(response.json?["accepted"]?.arrayValue?.count == 2, "\(response.text)")
            }
            try await body(&world)
        }
    }

    static func comment(_ id: String, on task: String, body: String, op: String = "insert") -> JSONValue {
        Mutation2.make(op, "comments", id, columns: ["task_id": .string(task), "body": .string(body)])
    }

    /// The entry is `policy_rejected`, terminal, and carries no row (another user's row is
    /// not shown to the caller).
    static func expectRefused(_ entry: JSONValue, _ comment: Comment, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(entry["status"] == "rejected_terminal", comment, sourceLocation: sourceLocation)
        #expect(entry["code"] == "policy_rejected", comment, sourceLocation: sourceLocation)
        #expect(entry["server_row"] == nil, "no row shown: \(comment)", sourceLocation: sourceLocation)
        #expect(entry["message"]?.stringValue?.contains("owner_only") == true, "\(entry)", sourceLocation: sourceLocation)
    }

    @Test("protocol 2: inserts that name another owner, or a parent of another user's or none, are policy_rejected and write nothing")
    func foreignInserts() async throws {
        try await Self.withWorld { world in
            let stolen = UUID().uuidString.lowercased()
            Self.expectRefused(try await world.b.pushOne(Mutation2.task(stolen, user: Self.userA, title: "planted")), "a task for user A")
            #expect(try world.row("tasks", stolen) == nil)
            let upserted = UUID().uuidString.lowercased()
            Self.expectRefused(
                try await world.b.pushOne(Mutation2.make("upsert", "tasks", upserted, columns: ["user_id": .string(Self.userA), "title": "planted"])),
                "an upsert for user A"
            )
            let ownerless = UUID().uuidString.lowercased()
            Self.expectRefused(try await world.b.pushOne(Mutation2.make("insert", "tasks", ownerless, columns: ["title": "whose?"])), "no owner at all")

            // The measured case: user B comments on user A's task; A's devices get nothing.
            let planted = UUID().uuidString.lowercased()
            Self.expectRefused(try await world.b.pushOne(Self.comment(planted, on: world.taskA, body: "planted")), "a comment on user A's task")
            #expect(try world.row("comments", planted) == nil)
            let orphan = UUID().uuidString.lowercased()
            Self.expectRefused(try await world.b.pushOne(Self.comment(orphan, on: UUID().uuidString, body: "orphan")), "a comment on no task")
            #expect(try world.row("comments", orphan) == nil)
            let changes = try await world.a.sync()
            #expect(!changes.contains { [stolen, upserted, planted].contains($0["pk"]?["id"]?.stringValue ?? "") })
            #expect(world.a.held[ProtocolTwoServerTests.scopeA]?.count == 2, "user A holds their task and comment only")
        }
    }

    @Test("protocol 2: a child whose parent is inserted earlier in the same batch is the caller's; a later parent is not yet")
    func parentEarlierInTheBatch() async throws {
        try await Self.withWorld { world in
            let task = UUID().uuidString.lowercased()
            let comment = UUID().uuidString.lowercased()
            let inOrder = try await world.b.push([Mutation2.task(task, user: Self.userB, title: "new"), Self.comment(comment, on: task, body: "first")])
            #expect(inOrder.json?["accepted"]?.arrayValue?.count == 2, "\(inOrder.text)")

            let lateTask = UUID().uuidString.lowercased()
            let early = UUID().uuidString.lowercased()
            let reversed = try await world.b.push([Self.comment(early, on: lateTask, body: "too early"), Mutation2.task(lateTask, user: Self.userB, title: "late")])
            let rejected = try #require(reversed.json?["rejected"]?.arrayValue)
            #expect(rejected.count == 1)
            Self.expectRefused(rejected[0], "the parent came later")
            #expect(reversed.json?["accepted"]?.arrayValue?.first?["pk"]?["id"] == .string(lateTask))
        }
    }

    @Test("protocol 2: updates, upserts, deletes and inserts over another user's rows are policy_rejected; the rows stay as they were")
    func foreignRows() async throws {
        try await Self.withWorld { world in
            let before = try #require(try world.row("tasks", world.taskA))
            let commentBefore = try #require(try world.row("comments", world.commentA))
            Self.expectRefused(try await world.b.pushOne(Mutation2.make("update", "tasks", world.taskA, columns: ["title": "defaced"])), "update")
            Self.expectRefused(try await world.b.pushOne(Mutation2.make("upsert", "tasks", world.taskA, columns: ["title": "defaced"])), "upsert")
            Self.expectRefused(try await world.b.pushOne(Mutation2.make("delete", "tasks", world.taskA)), "delete")
            Self.expectRefused(try await world.b.pushOne(Mutation2.task(world.taskA, user: Self.userB, title: "taken")), "insert over the key")
            Self.expectRefused(try await world.b.pushOne(Self.comment(world.commentA, on: world.taskA, body: "defaced", op: "update")), "a comment's update")
            Self.expectRefused(try await world.b.pushOne(Mutation2.make("delete", "comments", world.commentA)), "a comment's delete")
            #expect(try world.row("tasks", world.taskA) == before)
            #expect(try world.row("comments", world.commentA) == commentBefore)

            // A soft-deleted row is still its owner's: not resurrected by another user.
            #expect(try await world.a.pushOne(Mutation2.make("delete", "tasks", world.taskA))["status"] == "applied")
            let deleted = try #require(try world.row("tasks", world.taskA))
            Self.expectRefused(try await world.b.pushOne(Mutation2.task(world.taskA, user: Self.userB, title: "resurrected")), "resurrection")
            #expect(try world.row("tasks", world.taskA) == deleted)
            #expect(deleted.isDeleted)
        }
    }

    @Test("protocol 2: an update that moves a row to another owner, or under another user's parent, is policy_rejected")
    func moves() async throws {
        try await Self.withWorld { world in
            let task = try #require(try world.row("tasks", world.taskA))
            Self.expectRefused(try await world.a.pushOne(Mutation2.make("update", "tasks", world.taskA, columns: ["user_id": .string(Self.userB)])), "given away")
            Self.expectRefused(try await world.a.pushOne(Mutation2.make("update", "tasks", world.taskA, columns: ["user_id": .null])), "owner cleared")
            #expect(try world.row("tasks", world.taskA) == task)

            let comment = try #require(try world.row("comments", world.commentB))
            Self.expectRefused(try await world.b.pushOne(Self.comment(world.commentB, on: world.taskA, body: "moved", op: "update")), "under A's task")
            Self.expectRefused(try await world.b.pushOne(Self.comment(world.commentB, on: UUID().uuidString, body: "moved", op: "upsert")), "under no task")
            #expect(try world.row("comments", world.commentB) == comment)

            // The owner's own writes go through, naming the owner again included.
            let second = UUID().uuidString.lowercased()
            #expect(try await world.b.pushOne(Mutation2.task(second, user: Self.userB, title: "another"))["status"] == "applied")
            #expect(try await world.b.pushOne(Self.comment(world.commentB, on: second, body: "moved", op: "update"))["status"] == "applied")
            #expect(try await world.b.pushOne(Mutation2.make("update", "tasks", world.taskB, columns: ["user_id": .string(Self.userB.uppercased()), "title": "kept"]))["status"] == "applied")
            #expect(try world.row("comments", world.commentB)?.values["task_id"] == .string(second))
            #expect(try await world.b.pushOne(Mutation2.make("delete", "comments", world.commentB))["status"] == "applied")
        }
    }

    @Test("protocol 2 with push: enabled on an owned table: the bare server's behaviour, any user writes any row")
    func enabledOptsOut() async throws {
        let directory = SyncFixture.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let original = try String(contentsOf: SyncFixture.tasksSpec, encoding: .utf8)
        let opened = original.replacingOccurrences(of: "sync: { parent: tasks, parentKey: task_id }", with: "sync: { parent: tasks, parentKey: task_id, push: enabled }")
        try #require(opened != original)
        let spec = try SyncFixture.writeSpec(opened, in: directory)
        try await Self.withWorld(spec: spec) { world in
            let planted = UUID().uuidString.lowercased()
            #expect(try await world.b.pushOne(Self.comment(planted, on: world.taskA, body: "allowed"))["status"] == "applied")
            #expect(try world.row("comments", planted)?.values["body"] == .string("allowed"))
            // The tasks table kept the default.
            Self.expectRefused(try await world.b.pushOne(Mutation2.make("update", "tasks", world.taskA, columns: ["title": "defaced"])), "tasks stay owner_only")
        }
    }

    @Test("protocol 1 answers the same matrix its own way, and writes nothing into another user's rows")
    func protocolOne() async throws {
        try await withSyncEmulator { emulator, first in
            let a = try first.asUser(Self.userA, emulator: emulator)
            let b = try first.asUser(Self.userB, emulator: emulator)
            try await a.register()
            try await b.register()
            let taskA = UUID().uuidString.lowercased()
            let commentA = UUID().uuidString.lowercased()
            let taskB = UUID().uuidString.lowercased()
            let commentB = UUID().uuidString.lowercased()
            #expect(try await a.pushOne(Change.create("tasks", taskA, JSONObject([("user_id", .string(Self.userA)), ("title", "A's")])))["status"] == "applied")
            #expect(try await a.pushOne(Change.create("comments", commentA, JSONObject([("task_id", .string(taskA)), ("body", "A's")])))["status"] == "applied")
            #expect(try await b.pushOne(Change.create("tasks", taskB, JSONObject([("user_id", .string(Self.userB)), ("title", "B's")])))["status"] == "applied")
            #expect(try await b.pushOne(Change.create("comments", commentB, JSONObject([("task_id", .string(taskB)), ("body", "B's")])))["status"] == "applied")
            let task = try #require(try emulator.syncedRow(table: "tasks", id: taskA))
            let comment = try #require(try emulator.syncedRow(table: "comments", id: commentA))

            // An insert naming another owner: the owner is forced to the caller.
            let forced = UUID().uuidString.lowercased()
            #expect(try await b.pushOne(Change.create("tasks", forced, JSONObject([("user_id", .string(Self.userA)), ("title", "for A?")])))["status"] == "applied")
            #expect(try emulator.syncedRow(table: "tasks", id: forced)?.values["user_id"] == .string(Self.userB))
            // A child of another user's parent, or of none: invalid_data.
            let planted = try await b.pushOne(Change.create("comments", UUID().uuidString, JSONObject([("task_id", .string(taskA)), ("body", "planted")])))
            #expect(planted["reason_code"] == "invalid_data")
            let orphan = try await b.pushOne(Change.create("comments", UUID().uuidString, JSONObject([("task_id", .string(UUID().uuidString)), ("body", "orphan")])))
            #expect(orphan["reason_code"] == "invalid_data")
            // Another user's rows: record_not_found (an insert over the key: the key is in use).
            for change in [
                Change.update("tasks", taskA, JSONObject([("title", "defaced")])), Change.delete("tasks", taskA),
                Change.update("comments", commentA, JSONObject([("body", "defaced")])), Change.delete("comments", commentA),
            ] {
                let entry = try await b.pushOne(change)
                #expect(entry["status"] == "rejected_terminal")
                #expect(entry["reason_code"] == "record_not_found", "\(entry)")
            }
            #expect(try await b.pushOne(Change.create("tasks", taskA, JSONObject([("user_id", .string(Self.userB)), ("title", "taken")])))["reason_code"] == "invalid_data")
            // Moves: the owner column and the parent key of an update are protected, not applied.
            #expect(try await a.pushOne(Change.update("tasks", taskA, JSONObject([("user_id", .string(Self.userB))])))["status"] == "applied")
            #expect(try await b.pushOne(Change.update("comments", commentB, JSONObject([("task_id", .string(taskA))])))["status"] == "applied")
            #expect(try emulator.syncedRow(table: "comments", id: commentB)?.values["task_id"] == .string(taskB))

            let after = try #require(try emulator.syncedRow(table: "tasks", id: taskA))
            #expect(after.values["user_id"] == task.values["user_id"])
            #expect(after.values["title"] == task.values["title"])
            #expect(after.ownerID == Self.userA)
            #expect(try emulator.syncedRow(table: "comments", id: commentA) == comment)
            #expect(try emulator.syncedRowCount(table: "comments", userID: Self.userA) == 1)
        }
    }
}

import Foundation
import SelfDBEmulator
import SelfDBRuntime
import Synchro
import Testing

/// A push of several batches keeps two on the wire: the next is sent while the server still
/// works on the one before.
@Suite("Push: two batches on the wire")
struct PushOverlapTests {
    /// Three batches: the second goes out before the answer to the first, which the emulator
    /// holds until it comes (a client that waited for the answer would wait for the timeout).
    @Test(arguments: SyncProtocol.allCases) func theNextBatchGoesOutBeforeTheAnswer(_ syncProtocol: SyncProtocol) async throws {
        try await SyncWorld.run(configure: { $0.syncProtocol = syncProtocol }) { world in
            let user = SyncWorld.newUser()
            let phone = try await world.startedDevice("phone", user: user) { $0.pushBatchSize = 2 }
            let ids = try Self.writeTasks(6, user: user, on: phone)
            world.emulator.resetRecordedRequests()
            world.emulator.holdAnswers(method: "POST", path: "/sync/push", untilAtOnce: 2, timeout: .seconds(30))
            try await phone.syncNow()

            #expect(world.emulator.requestCount(method: "POST", path: "/sync/push") == 3)
            #expect(world.emulator.mostRequestsAtOnce(method: "POST", path: "/sync/push") == 2)
            #expect(try phone.pendingChangeCount() == 0)
            for id in ids { #expect(try world.emulator.syncedRow(table: "tasks", id: id) != nil, "\(id)") }
        }
    }

    /// A batch of comments waits for the answer to the batch of their tasks. Protocol 1 says
    /// which tables are parents (were the tasks refused, the comments would be orphans);
    /// protocol 2 does not, and the comments name their tasks (a server running both pushes at
    /// once would compute the comments' scopes without their tasks).
    @Test(arguments: SyncProtocol.allCases) func aBatchOfChildrenWaitsForItsParentsAnswer(_ syncProtocol: SyncProtocol) async throws {
        try await SyncWorld.run(configure: { $0.syncProtocol = syncProtocol }) { world in
            let user = SyncWorld.newUser()
            let phone = try await world.startedDevice("phone", user: user) { $0.pushBatchSize = 2 }
            let tasks = try Self.writeTasks(2, user: user, on: phone)
            try phone.writeTransaction { db in
                // One names its task in upper case: the same record.
                for (index, task) in tasks.enumerated() {
                    let named = index == 0 ? task.uppercased() : task
                    try db.execute(sql: "INSERT INTO comments (id, task_id, body) VALUES (?, ?, 'hello')", arguments: [UUID().uuidString, named])
                }
            }
            world.emulator.resetRecordedRequests()
            // The tasks' answer is held a second for a second push, which must not come.
            world.emulator.holdAnswers(method: "POST", path: "/sync/push", untilAtOnce: 2, timeout: .seconds(1))
            try await phone.syncNow()

            #expect(world.emulator.requestCount(method: "POST", path: "/sync/push") == 2)
            #expect(world.emulator.mostRequestsAtOnce(method: "POST", path: "/sync/push") == 1)
            #expect(try world.emulator.syncedRowCount(table: "comments") == 2)
        }
    }

    /// The first batch fails (503) while the second is on the wire and taken. The cycle ends
    /// in that error and is retried, and the second batch is not sent again: its inserts would
    /// come back as conflicts ("record already exists") and be recorded as rejected.
    @Test(arguments: SyncProtocol.allCases) func aBatchTakenBesideAFailedOneIsNotSentAgain(_ syncProtocol: SyncProtocol) async throws {
        try await SyncWorld.run(configure: { $0.syncProtocol = syncProtocol }) { world in
            let user = SyncWorld.newUser()
            let phone = try await world.startedDevice("phone", user: user) {
                $0.pushBatchSize = 2
                $0.maxRetryAttempts = 3
            }
            let conflicts = Locked(0)
            let listening = phone.onConflict { _ in conflicts.withLock { $0 += 1 } }
            let ids = try Self.writeTasks(6, user: user, on: phone)
            world.emulator.resetRecordedRequests()
            world.emulator.injectFault(.serviceUnavailable(retryAfter: 0), method: "POST", path: "/sync/push", count: 1)
            world.emulator.holdAnswers(method: "POST", path: "/sync/push", untilAtOnce: 2, timeout: .seconds(30))
            try await phone.syncNow()

            let pushes = world.emulator.recordedRequests().filter { $0.path == "/sync/push" }.map(\.status)
            // The failed batch and the one beside it, then the failed one again and the third.
            #expect(pushes == [503, 200, 200, 200], "\(pushes)")
            #expect(conflicts.current == 0)
            #expect(try phone.rejectedMutations().isEmpty)
            #expect(world.emulator.mostRequestsAtOnce(method: "POST", path: "/sync/push") == 2)
            #expect(try phone.pendingChangeCount() == 0)
            for id in ids { #expect(try world.emulator.syncedRow(table: "tasks", id: id) != nil, "\(id)") }
            listening.cancel()
        }
    }

    /// Writes `count` tasks of `user` in one transaction; their ids.
    private static func writeTasks(_ count: Int, user: String, on phone: SynchroClient) throws -> [String] {
        let ids = (0..<count).map { _ in UUID().uuidString.lowercased() }
        try phone.writeTransaction { db in
            for (index, id) in ids.enumerated() {
                try db.execute(sql: "INSERT INTO tasks (id, title, user_id) VALUES (?, ?, ?)", arguments: [id, "task \(index)", user])
            }
        }
        return ids
    }
}

import Foundation
import GRDB
import SelfDBEmulator
import SelfDBRuntime
import Synchro
import Testing

/// The Synchro note's examples, as written, against the emulator; then a second device of
/// the same user sees everything the first wrote.
@Suite("The Synchro note's examples")
struct NoteExampleTests {
    @Test func theNoteFlowRunsAsWritten() async throws {
        try await SyncWorld.run { world in
            let userId = SyncWorld.newUser()
            let token = world.emulator.syncAccessToken(forUser: userId)
            @Sendable func getToken() async -> String { token }
            let dbURL = world.directory.appendingPathComponent("app.sqlite")

            // Configuration
            let config = SynchroConfig(
                dbPath: dbURL.path,
                serverURL: world.emulator.baseURL,
                authProvider: { await getToken() },
                clientID: UUID().uuidString,
                appVersion: "1.0.0"
            )
            let client = try SynchroClient(config: config)
            defer { try? client.close() }
            #expect(config.platform == "ios" && config.syncInterval == 30 && config.pushDebounce == 0.5)
            #expect(config.maxRetryAttempts == 5 && config.pullPageSize == 100 && config.pushBatchSize == 100 && config.snapshotPageSize == 100)

            let statuses = Locked<[SyncStatus]>([])
            let statusCancel = client.onStatusChange { status in
                statuses.withLock { $0.append(status) }
            }
            // Sync Control
            try await client.start()
            #expect(statuses.current.contains(.syncing))
            #expect(client.status == .idle)
            await #expect(throws: SynchroError.self) { try await client.start() }

            // Observation
            let changes = Locked(0)
            let cancel = client.onChange(tables: ["tasks"]) {
                changes.withLock { $0 += 1 }
            }
            let watched = Locked<[[String]]>([])
            let watchCancel = client.watch(
                "SELECT * FROM tasks ORDER BY created_at DESC",
                tables: ["tasks"]
            ) { rows in
                let titles = rows.map { $0["title"] as String? ?? "" }
                watched.withLock { $0.append(titles) }
            }
            try await eventually("the watch's first call") { !watched.current.isEmpty }
            #expect(watched.current.first?.isEmpty == true)

            // Writes
            let result = try client.execute(
                "INSERT INTO tasks (id, title, user_id) VALUES (?, ?, ?)",
                params: [UUID().uuidString, "Review proposal", userId]
            )
            #expect(result.rowsAffected == 1)

            // Batch Execution
            let affected = try client.executeBatch([
                SQLStatement(sql: "INSERT INTO tasks (id, title, user_id) VALUES (?, ?, ?)", params: [UUID().uuidString, "Write report", userId]),
                SQLStatement(sql: "INSERT INTO tasks (id, title, user_id) VALUES (?, ?, ?)", params: [UUID().uuidString, "Update docs", userId]),
            ])
            #expect(affected == 2)

            // Transactions
            let taskId = UUID().uuidString
            try client.writeTransaction { db in
                try db.execute(
                    sql: "INSERT INTO tasks (id, title, user_id) VALUES (?, ?, ?)",
                    arguments: [taskId, "Review proposal", userId]
                )
                try db.execute(
                    sql: "INSERT INTO comments (id, task_id, body, status) VALUES (?, ?, ?, ?)",
                    arguments: [UUID().uuidString, taskId, "Looks good", "open"]
                )
            }
            let count = try client.readTransaction { db in
                try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM tasks") ?? 0
            }
            #expect(count == 4)

            // Queries
            let rows = try client.query("SELECT * FROM tasks WHERE user_id = ?", params: [userId])
            #expect(rows.count == 4)
            let task = try client.queryOne("SELECT * FROM tasks WHERE id = ?", params: [taskId])
            #expect(task?["title"] == "Review proposal")

            try await eventually("onChange and watch after the writes") { changes.current >= 3 && watched.current.last?.count == 4 }
            #expect(try client.pendingChangeCount() == 5)

            // Trigger an immediate sync cycle
            try await client.syncNow()
            #expect(try client.pendingChangeCount() == 0)
            #expect(try world.emulator.syncedRowCount(table: "tasks", userID: userId) == 4)
            #expect(try world.emulator.syncedRowCount(table: "comments") == 1)

            // Another device of the same user gets all of it.
            let tablet = try world.device("tablet", user: userId)
            try await tablet.start()
            #expect(try tablet.live("tasks").count == 4)
            #expect(try tablet.live("comments", column: "body").values.sorted() == ["Looks good"])

            // Stop the sync loop; close the database (also stops sync).
            client.stop()
            #expect(client.status == .stopped)
            await #expect(throws: SynchroError.self) { try await client.syncNow() }
            cancel.cancel()
            watchCancel.cancel()
            statusCancel.cancel()
            try client.close()
        }
    }
}

/// Waits (at most 20 s, polling) for `condition`: for callbacks that arrive on another queue.
/// Generous, because a loaded 2-core CI machine can take seconds to deliver one.
func eventually(_ what: String = "condition", sourceLocation location: SourceLocation = #_sourceLocation, _ condition: @Sendable () throws -> Bool) async throws {
    let deadline = ContinuousClock.now + .seconds(20)
    while ContinuousClock.now < deadline {
        if try condition() { return }
        try await Task.sleep(for: .milliseconds(10))
    }
    if try condition() { return }
    Issue.record("\(what) did not become true within 20 s", sourceLocation: location)
}

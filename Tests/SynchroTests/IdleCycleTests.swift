import Foundation
import SelfDBEmulator
import Testing

@testable import Synchro

/// What an app pays all day: a cycle with nothing to do, a warm start and a close. None of
/// them writes the database; the log a sync wrote is folded into the file in the background,
/// and the file alone stays the whole database after `close()`.
@Suite("Synchro client: idle cycles, warm starts and close write nothing")
struct IdleCycleTests {
    /// The bytes of the database file and of its write-ahead log, once every write queued
    /// before has run (a write transaction that writes nothing waits its turn and adds nothing).
    static func files(_ client: SynchroClient) throws -> (database: Data, log: Data) {
        try client.writeTransaction { _ in }
        let path = client.config.dbPath
        return (try Data(contentsOf: URL(fileURLWithPath: path)), (try? Data(contentsOf: URL(fileURLWithPath: path + "-wal"))) ?? Data())
    }

    /// Waits (up to 10 s) until the background fold took the log into the file: a second after
    /// cycles of a few rows (SyncEngine.delayBeforeSmallFold).
    static func logFolded(_ client: SynchroClient) async throws -> Bool {
        for _ in 0..<200 {
            if client.engine.logFold.isFolded { return true }
            try await Task.sleep(for: .milliseconds(50))
        }
        return false
    }

    /// The live tasks of a copy of `client`'s database file alone, without its log.
    static func tasksInACopyOfTheFile(_ client: SynchroClient, in world: SyncWorld) throws -> Int {
        let copy = world.directory.appendingPathComponent("copy-\(UUID().uuidString).sqlite").path
        try FileManager.default.copyItem(atPath: client.config.dbPath, toPath: copy)
        let copied = try SynchroClient(
            config: SynchroConfig(dbPath: copy, serverURL: world.emulator.baseURL, authProvider: { "" }, clientID: "copy", appVersion: "1.0.0")
        )
        defer { try? copied.close() }
        return try copied.live("tasks").count
    }

    @Test("after a sync of a few rows the log is folded into the file a second later; idle cycles write nothing, one request each")
    func idleCyclesWriteNothing() async throws {
        try await SyncWorld.run(configure: ProtocolTwoClientTests.protocolTwo) { world in
            let user = SyncWorld.newUser()
            let writer = try await world.startedDevice("writer", user: user)
            for index in 0..<30 {
                try writer.execute("INSERT INTO tasks (id, user_id, title) VALUES (?, ?, ?)", params: [UUID().uuidString, user, "task \(index)"])
            }
            try await writer.syncNow()
            let reader = try await world.startedDevice("reader", user: user)
            #expect(try reader.live("tasks").count == 30)
            #expect(try await Self.logFolded(reader))
            let synced = try Self.files(reader)
            #expect(try Self.tasksInACopyOfTheFile(reader, in: world) == 30, "the sync's log was folded into the file")

            let before = world.emulator.requestCount(method: "POST", path: "/sync/pull")
            for _ in 0..<3 { try await reader.syncNow() }
            #expect(world.emulator.requestCount(method: "POST", path: "/sync/pull") == before + 3)
            let idle = try Self.files(reader)
            #expect(idle.database == synced.database, "idle cycles write nothing to the file")
            #expect(idle.log == synced.log, "nor to the log")

            // A change pulled later is applied and verified as before, then folded.
            try writer.execute("UPDATE tasks SET title = 'renamed' WHERE title = 'task 7'")
            try await writer.syncNow()
            try await reader.syncNow()
            #expect(try reader.live("tasks").values.contains("renamed"))
            #expect(try await Self.logFolded(reader))
            let changed = try Self.files(reader)
            #expect(changed.database != idle.database)
            try await reader.syncNow()
            #expect(try Self.files(reader).log == changed.log)
        }
    }

    @Test("a warm start with nothing new writes nothing; the file after close() is the whole database")
    func warmStartWritesNothing() async throws {
        try await SyncWorld.run(configure: ProtocolTwoClientTests.protocolTwo) { world in
            let user = SyncWorld.newUser()
            let first = try await world.startedDevice("phone", user: user)
            for index in 0..<20 {
                try first.execute("INSERT INTO tasks (id, user_id, title) VALUES (?, ?, ?)", params: [UUID().uuidString, user, "task \(index)"])
            }
            try await first.syncNow()
            // Closed at once, before the background fold may have run, after an app write
            // the fold has not seen: close() folds the rest.
            try first.execute("INSERT INTO tasks (id, user_id, title) VALUES (?, ?, ?)", params: [UUID().uuidString, user, "unsynced"])
            try first.close()
            #expect(try Self.tasksInACopyOfTheFile(first, in: world) == 21, "the file alone holds every row")

            let again = try world.device("phone", user: user)
            try await again.start()
            #expect(try again.live("tasks").count == 21)
            #expect(try again.pendingChangeCount() == 0)
            try await again.syncNow()
            #expect(try await Self.logFolded(again))
            let started = try Self.files(again)
            // The unsynced row was pushed by the first cycle; after that, nothing is written.
            try await again.syncNow()
            #expect(try Self.files(again) == started)
            try again.close()
            #expect(try Self.tasksInACopyOfTheFile(again, in: world) == 21)
        }
    }

    @Test("a warm start of a database with nothing pending writes nothing at all")
    func quietWarmStart() async throws {
        try await SyncWorld.run(configure: ProtocolTwoClientTests.protocolTwo) { world in
            let user = SyncWorld.newUser()
            let first = try await world.startedDevice("phone", user: user)
            try first.execute("INSERT INTO tasks (id, user_id, title) VALUES (?, ?, ?)", params: [UUID().uuidString, user, "synced"])
            try await first.syncNow()
            try first.close()

            let again = try world.device("phone", user: user)
            let opened = try Self.files(again)
            try await again.start()
            try await again.syncNow()
            #expect(try Self.files(again) == opened, "open, connect, the first cycle and another write nothing")
            try again.close()
        }
    }
}

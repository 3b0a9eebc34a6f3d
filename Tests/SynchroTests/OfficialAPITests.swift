import Foundation
import GRDB
import SelfDBEmulator
import SelfDBRuntime
import Synchro
import Testing

@testable import Synchro

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The official Synchro 0.3.0 client's API additions (contract §6): seeded databases,
/// `start(options:)`, prepared statements, local-only tables, and `platform` on the wire.
@Suite("Synchro: the official 0.3.0 API additions")
struct OfficialAPITests {
    static func protocolTwo(_ configuration: inout SelfDBEmulator.Configuration) {
        configuration.syncProtocol = .two
    }

    // MARK: - Seeded databases

    @Test("a seed copied from a synced device: rows offline at once, then connect with its cursor, delta pulls, no rebuild")
    func seedFromOwnDatabase() async throws {
        try await SyncWorld.run(configure: Self.protocolTwo) { world in
            let user = SyncWorld.newUser()
            let source = try await world.startedDevice("source", user: user)
            let seeded = UUID().uuidString.lowercased()
            try source.execute("INSERT INTO tasks (id, user_id, title) VALUES (?, ?, ?)", params: [seeded, user, "in the seed"])
            try await source.syncNow()
            try source.close()
            let seed = world.directory.appendingPathComponent("seed.sqlite").path
            try FileManager.default.copyItem(atPath: source.config.dbPath, toPath: seed)

            // Written on the server after the seed was made: a delta pull brings it.
            let other = try await world.startedDevice("other", user: user)
            let later = UUID().uuidString.lowercased()
            try other.execute("INSERT INTO tasks (id, user_id, title) VALUES (?, ?, ?)", params: [later, user, "after the seed"])
            try await other.syncNow()

            let recorder = BodyRecordingTransport()
            let device = try world.device("seeded", user: user, transport: recorder) { $0.seedDatabasePath = seed }
            defer { try? device.close() }
            #expect(try device.live("tasks") == [seeded: "in the seed"], "usable offline before start()")
            let offline = UUID().uuidString.lowercased()
            try device.execute("INSERT INTO tasks (id, user_id, title) VALUES (?, ?, ?)", params: [offline, user, "written offline"])
            #expect(try device.pendingChangeCount() == 1)

            let rebuildsBefore = world.emulator.requestCount(method: "POST", path: "/sync/rebuild")
            try await device.start()
            #expect(world.emulator.requestCount(method: "POST", path: "/sync/rebuild") == rebuildsBefore, "the seeded scope needs no rebuild")
            let connect = try #require(recorder.bodies(path: "/sync/connect").first)
            let known = try #require(connect["known_scopes"] as? [String: Any])
            let scope = try #require(known["user:\(user)"] as? [String: Any])
            #expect(scope["cursor"] is String, "the seed's cursor is sent: \(connect)")
            #expect(try device.live("tasks") == [seeded: "in the seed", later: "after the seed", offline: "written offline"])
            #expect(try device.pendingChangeCount() == 0)

            try await other.syncNow()
            #expect(try other.live("tasks") == [seeded: "in the seed", later: "after the seed", offline: "written offline"])
        }
    }

    @Test("a seeded scope whose rows do not match the server's checksum is repaired by a rebuild")
    func corruptedSeedIsRebuilt() async throws {
        try await SyncWorld.run(configure: Self.protocolTwo) { world in
            let user = SyncWorld.newUser()
            let source = try await world.startedDevice("source", user: user)
            let kept = UUID().uuidString.lowercased()
            let lost = UUID().uuidString.lowercased()
            try source.execute("INSERT INTO tasks (id, user_id, title) VALUES (?, ?, ?)", params: [kept, user, "kept"])
            try source.execute("INSERT INTO tasks (id, user_id, title) VALUES (?, ?, ?)", params: [lost, user, "lost from the seed"])
            try await source.syncNow()
            try source.close()
            let seed = world.directory.appendingPathComponent("seed.sqlite").path
            try FileManager.default.copyItem(atPath: source.config.dbPath, toPath: seed)
            // The seed lost a row and its provenance (the triggers stand down: no delete is queued).
            let queue = try DatabaseQueue(path: seed)
            try await queue.write { db in
                try db.execute(sql: "INSERT INTO _synchro_lock (locked) VALUES (1)")
                try db.execute(sql: "DELETE FROM tasks WHERE id = ?", arguments: [lost])
                try db.execute(sql: "DELETE FROM _synchro_scope_rows WHERE record_id = ?", arguments: [lost])
                try db.execute(sql: "DELETE FROM _synchro_lock")
            }
            try queue.close()

            let device = try world.device("seeded", user: user) { $0.seedDatabasePath = seed }
            #expect(try device.live("tasks") == [kept: "kept"])
            let rebuildsBefore = world.emulator.requestCount(method: "POST", path: "/sync/rebuild")
            try await device.start()
            #expect(world.emulator.requestCount(method: "POST", path: "/sync/rebuild") > rebuildsBefore)
            #expect(try device.live("tasks") == [kept: "kept", lost: "lost from the seed"])
            #expect(try device.pendingChangeCount() == 0)
        }
    }

    @Test("a seed in the official generator's form: camelCase local_schema, its triggers replaced, cursors kept, converges")
    func seedInOfficialForm() async throws {
        try await SyncWorld.run(configure: Self.protocolTwo) { world in
            let user = SyncWorld.newUser()
            let source = try await world.startedDevice("source", user: user)
            let task = UUID().uuidString.lowercased()
            try source.execute("INSERT INTO tasks (id, user_id, title, priority) VALUES (?, ?, ?, 3)", params: [task, user, "from the generator"])
            try source.execute("INSERT INTO comments (id, task_id, body) VALUES (?, ?, ?)", params: [UUID().uuidString, task, "seeded comment"])
            try await source.syncNow()
            try source.close()
            let seed = world.directory.appendingPathComponent("official-seed.sqlite").path
            try OfficialSeed.write(to: seed, from: source.config.dbPath)

            let device = try world.device("seeded", user: user) { $0.seedDatabasePath = seed }
            #expect(try device.live("tasks") == [task: "from the generator"])
            #expect(try device.live("comments", column: "body").values.sorted() == ["seeded comment"])
            let offline = UUID().uuidString.lowercased()
            try device.execute("INSERT INTO tasks (id, user_id, title) VALUES (?, ?, ?)", params: [offline, user, "written offline"])
            #expect(try device.pendingChangeCount() == 1, "this client's triggers replaced the generator's")
            #expect(try device.queryOne("SELECT COUNT(*) AS n FROM _synchro_pending_changes")?["n"] == 0)

            let rebuildsBefore = world.emulator.requestCount(method: "POST", path: "/sync/rebuild")
            try await device.start()
            #expect(world.emulator.requestCount(method: "POST", path: "/sync/rebuild") == rebuildsBefore, "its cursor is still good")
            #expect(try device.live("tasks") == [task: "from the generator", offline: "written offline"])
            #expect(try device.pendingChangeCount() == 0)
            let reader = try await world.startedDevice("reader", user: user)
            #expect(try reader.live("tasks") == [task: "from the generator", offline: "written offline"])
            #expect(try reader.live("comments", column: "body").values.sorted() == ["seeded comment"])

            // A seed from another server database (its cursors foreign here): a rebuild, no row lost.
            let foreign = world.directory.appendingPathComponent("foreign-seed.sqlite").path
            try FileManager.default.copyItem(atPath: seed, toPath: foreign)
            let queue = try DatabaseQueue(path: foreign)
            try await queue.write { db in try db.execute(sql: "UPDATE _synchro_scopes SET cursor = 'v2.e30.c2ln'") }
            try queue.close()
            let stale = try world.device("stale", user: user) { $0.seedDatabasePath = foreign }
            #expect(try stale.live("tasks") == [task: "from the generator"])
            try await stale.start()
            #expect(world.emulator.requestCount(method: "POST", path: "/sync/rebuild") > rebuildsBefore)
            #expect(try stale.live("tasks") == [task: "from the generator", offline: "written offline"])
            #expect(try stale.live("comments", column: "body").values.sorted() == ["seeded comment"])
        }
    }

    @Test("seed paths: a missing seed opens a new database; a seed that is not SQLite is a databaseError and leaves nothing; an existing database ignores the seed")
    func seedBadInput() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("synchro-seed-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        func config(_ name: String, seed: String) -> SynchroConfig {
            SynchroConfig(
                dbPath: directory.appendingPathComponent("\(name).sqlite").path,
                serverURL: URL(fileURLWithPath: "/nowhere"),
                authProvider: { "unused" },
                clientID: name,
                appVersion: "1.0.0",
                seedDatabasePath: seed
            )
        }

        let missing = try SynchroClient(config: config("missing", seed: directory.appendingPathComponent("no-such-seed.sqlite").path))
        #expect(try missing.query("SELECT name FROM sqlite_master WHERE name = 'tasks'").isEmpty)
        try missing.close()

        let garbage = directory.appendingPathComponent("garbage.sqlite").path
        try Data(String(repeating: "not a database. ", count: 512).utf8).write(to: URL(fileURLWithPath: garbage))
        let bad = config("bad", seed: garbage)
        #expect {
            _ = try SynchroClient(config: bad)
        } throws: { error in
            guard case .databaseError = error as? SynchroError else { return false }
            return true
        }
        let left = try FileManager.default.contentsOfDirectory(atPath: directory.path)
        #expect(!left.contains { $0.hasPrefix("bad.sqlite") }, "\(left)")

        // A SQLite file whose Synchro metadata cannot be read is refused the same way.
        let broken = directory.appendingPathComponent("broken.sqlite").path
        let queue = try DatabaseQueue(path: broken)
        try queue.write { db in
            try db.execute(sql: "CREATE TABLE _synchro_meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)")
            try db.execute(sql: "INSERT INTO _synchro_meta VALUES ('local_schema', 'not json')")
        }
        try queue.close()
        #expect(throws: SynchroError.self) { _ = try SynchroClient(config: config("unreadable", seed: broken)) }
        #expect(!FileManager.default.fileExists(atPath: directory.appendingPathComponent("unreadable.sqlite").path))

        // An existing database is opened as it is, whatever the seed.
        var fresh = config("existing", seed: garbage)
        fresh.seedDatabasePath = nil
        let existing = try SynchroClient(config: fresh)
        try existing.createTable("notes", columns: [ColumnDef(name: "body", type: "TEXT")])
        try existing.execute("INSERT INTO notes (body) VALUES ('mine')")
        try existing.close()
        let reopened = try SynchroClient(config: config("existing", seed: garbage))
        #expect(try reopened.queryOne("SELECT body FROM notes")?["body"] == "mine")
        try reopened.close()
        let all = try FileManager.default.contentsOfDirectory(atPath: directory.path)
        #expect(!all.contains { $0.contains(".seed-") }, "no staging file is left: \(all)")
    }

    // MARK: - start(options:)

    @Test("initialSyncCompleted is called once, after the first cycle, before start() returns; not when start fails")
    func initialSyncCompleted() async throws {
        try await SyncWorld.run(configure: Self.protocolTwo) { world in
            let user = SyncWorld.newUser()
            let calls = Locked(0)
            let options = SyncOptions(initialSyncCompleted: { calls.withLock { $0 += 1 } })
            let device = try world.device("phone", user: user)
            try await device.start(options: options)
            #expect(calls.current == 1)
            try await device.syncNow()
            device.stop()
            try await device.start()
            #expect(calls.current == 1)
            device.stop()

            await world.stopEmulator()
            let offline = try world.device("offline", user: user)
            await #expect(throws: SynchroError.self) { try await offline.start(options: options) }
            #expect(calls.current == 1)
        }
    }

    // MARK: - Prepared statements

    @Test("prepared statements: writes are tracked and pushed after the debounce; reads cannot write; errors are SynchroErrors")
    func preparedStatements() async throws {
        try await SyncWorld.run(configure: Self.protocolTwo) { world in
            let user = SyncWorld.newUser()
            let device = try await world.startedDevice("phone", user: user) { $0.pushDebounce = 0.05 }
            let ids = (0..<3).map { _ in UUID().uuidString.lowercased() }
            let written = try device.withWritePreparedStatement("INSERT INTO tasks (id, user_id, title) VALUES (?, ?, ?)") { statement in
                for (index, id) in ids.enumerated() {
                    try statement.execute(arguments: [id, user, "task \(index)"])
                }
                return ids.count
            }
            #expect(written == 3)
            #expect(try device.pendingChangeCount() == 3)
            for _ in 0..<100 where try device.pendingChangeCount() > 0 {
                try await Task.sleep(for: .milliseconds(50))
            }
            #expect(try device.pendingChangeCount() == 0, "the debounced push ran")
            #expect(try world.emulator.syncedRowCount(table: "tasks", userID: user) == 3)

            let titles = try device.withPreparedStatement("SELECT title FROM tasks WHERE user_id = ? ORDER BY title") { statement in
                try String.fetchAll(statement, arguments: [user])
            }
            #expect(titles == ["task 0", "task 1", "task 2"])

            // A block that throws rolls its writes back; its error comes wrapped, as from
            // writeTransaction.
            struct Abort: Error {}
            #expect {
                try device.withWritePreparedStatement("INSERT INTO tasks (id, user_id, title) VALUES (?, ?, ?)") { statement in
                    try statement.execute(arguments: [UUID().uuidString, user, "rolled back"])
                    throw Abort()
                }
            } throws: { error in
                guard case .databaseError(let underlying) = error as? SynchroError else { return false }
                return underlying is Abort
            }
            #expect(try device.live("tasks").count == 3)
            #expect(try device.pendingChangeCount() == 0)

            #expect(throws: SynchroError.self) {
                try device.withPreparedStatement("DELETE FROM tasks") { statement in try statement.execute() }
            }
            #expect(try device.live("tasks").count == 3, "a read statement cannot write")
            #expect(throws: SynchroError.self) { try device.withPreparedStatement("SELEKT 1") { _ in () } }
            #expect {
                try device.withPreparedStatement("SELECT * FROM no_such_table") { _ in () }
            } throws: { error in
                guard case .tableNotSynced("no_such_table") = error as? SynchroError else { return false }
                return true
            }
        }
    }

    // MARK: - Local-only tables

    @Test("local-only tables: created before start, never synced, kept by the schema install, observable")
    func localTables() async throws {
        try await SyncWorld.run(configure: Self.protocolTwo) { world in
            let user = SyncWorld.newUser()
            let device = try world.device("phone", user: user)
            try device.createTable(
                "drafts",
                columns: [
                    ColumnDef(name: "id", type: "TEXT", nullable: false, primaryKey: true),
                    ColumnDef(name: "body", type: "TEXT", nullable: false, defaultValue: "''"),
                    ColumnDef(name: "words", type: "INTEGER", defaultValue: "0"),
                    ColumnDef(name: "saved_at", type: "TEXT", defaultValue: "CURRENT_TIMESTAMP"),
                ]
            )
            try device.createTable("drafts", columns: [ColumnDef(name: "id", type: "TEXT")], options: TableOptions(ifNotExists: true))
            try device.createIndex("drafts", columns: ["body"])
            try device.createIndex("drafts", columns: ["body"])
            try device.createIndex("drafts", columns: ["id", "words"], unique: true)
            let indexes = try device.query("SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'drafts' AND sql IS NOT NULL ORDER BY name")
            #expect(indexes.map { $0["name"] as String } == ["idx_drafts_body", "idx_drafts_id_words"])
            try device.execute("INSERT INTO drafts (id, body) VALUES ('d1', 'first draft')")
            try device.alterTable("drafts", addColumns: [ColumnDef(name: "tag", type: "VARCHAR(20)"), ColumnDef(name: "flag", type: "INTEGER", nullable: false)])
            #expect(try device.queryOne("SELECT tag, flag, words FROM drafts")?["words"] == 0)

            try await device.start()
            #expect(try device.queryOne("SELECT body FROM drafts WHERE id = 'd1'")?["body"] == "first draft", "kept by the schema install")
            try device.execute("INSERT INTO drafts (id, body) VALUES ('d2', 'second')")
            try device.execute("UPDATE drafts SET body = 'edited' WHERE id = 'd1'")
            #expect(try device.pendingChangeCount() == 0, "never synced")
            #expect(try device.query("SELECT name FROM sqlite_master WHERE type = 'trigger' AND tbl_name = 'drafts'").isEmpty)
            try await device.syncNow()
            #expect(try device.queryOne("SELECT COUNT(*) AS n FROM drafts")?["n"] == 2)

            // Composite keys, WITHOUT ROWID, and names that need quoting.
            try device.createTable(
                "odd \"name\"",
                columns: [ColumnDef(name: "a", type: "INTEGER", primaryKey: true), ColumnDef(name: "b b", type: "TEXT", primaryKey: true)],
                options: TableOptions(ifNotExists: false, withoutRowid: true)
            )
            try device.execute("INSERT INTO \"odd \"\"name\"\"\" (a, \"b b\") VALUES (1, 'x')")
            #expect(throws: SynchroError.self) { try device.execute("INSERT INTO \"odd \"\"name\"\"\" (a, \"b b\") VALUES (1, 'x')") }

            // Observation works as on any table.
            let changes = Locked(0)
            let watched = Locked<[Int]>([])
            let onChange = device.onChange(tables: ["drafts"]) { changes.withLock { $0 += 1 } }
            let watch = device.watch("SELECT COUNT(*) AS n FROM drafts", tables: ["drafts"]) { rows in
                watched.withLock { $0.append(rows.first?["n"] ?? -1) }
            }
            try await Self.waitUntil { watched.current == [2] }
            try device.execute("INSERT INTO drafts (id) VALUES ('d3')")
            try await Self.waitUntil { changes.current == 1 && watched.current == [2, 3] }
            onChange.cancel()
            watch.cancel()
        }
    }

    @Test("local-only tables refuse synced and reserved names, bad types and defaults, empty and duplicate columns")
    func localTableErrors() async throws {
        try await SyncWorld.run(configure: Self.protocolTwo) { world in
            let device = try await world.startedDevice("phone", user: SyncWorld.newUser())
            let text = [ColumnDef(name: "x", type: "TEXT")]
            #expect(Self.refusal { try device.createTable("tasks", columns: text) } == .syncedTable("tasks"))
            #expect(Self.refusal { try device.createTable("Comments", columns: text) } == .syncedTable("Comments"))
            #expect(Self.refusal { try device.createTable("_synchro_mine", columns: text) } == .reservedName("_synchro_mine"))
            #expect(Self.refusal { try device.createTable("sqlite_mine", columns: text) } == .reservedName("sqlite_mine"))
            #expect(Self.refusal { try device.createTable("", columns: text) } == .invalidName(""))
            #expect(Self.refusal { try device.createTable("t", columns: []) } == .noColumns)
            for type in ["", "TEXT, evil INTEGER", "TEXT PRIMARY KEY", "TEXT; DROP TABLE tasks", "VARCHAR(", "INT(1, 2, 3)", "1TEXT"] {
                #expect(Self.refusal { try device.createTable("t", columns: [ColumnDef(name: "x", type: type)]) } == .invalidType(column: "x", type: type))
            }
            for value in ["0, evil INTEGER", "(1), y TEXT", "abs(1)", "'unterminated", "(1); DROP TABLE tasks; --)"] {
                #expect(
                    Self.refusal { try device.createTable("t", columns: [ColumnDef(name: "x", type: "TEXT", defaultValue: value)]) }
                        == .invalidDefault(column: "x", value: value)
                )
            }
            #expect(Self.refusal { try device.createTable("t", columns: [ColumnDef(name: "x", type: "TEXT"), ColumnDef(name: "X", type: "TEXT")]) } == .duplicateColumn("X"))
            #expect(Self.refusal { try device.createTable("t", columns: text, options: TableOptions(withoutRowid: true)) } == .withoutRowidNeedsPrimaryKey)
            #expect(Self.refusal { try device.alterTable("tasks", addColumns: text) } == .syncedTable("tasks"))
            #expect(Self.refusal { try device.alterTable("missing", addColumns: text) } == .noSuchTable("missing"))
            #expect(Self.refusal { try device.createIndex("missing", columns: ["x"]) } == .noSuchTable("missing"))
            #expect(Self.refusal { try device.createIndex("_synchro_meta", columns: ["key"]) } == .reservedName("_synchro_meta"))

            try device.createTable("t", columns: [ColumnDef(name: "x", type: "DECIMAL(10, 2)", defaultValue: "(1 + 2)")])
            #expect(Self.refusal { try device.alterTable("t", addColumns: []) } == .noColumns)
            #expect(Self.refusal { try device.alterTable("t", addColumns: text) } == .duplicateColumn("x"))
            #expect(Self.refusal { try device.alterTable("t", addColumns: [ColumnDef(name: "k", type: "TEXT", primaryKey: true)]) } == .primaryKeyNotAddable("k"))
            #expect(Self.refusal { try device.createIndex("t", columns: []) } == .noColumns)
            // An index on a synced table is local and allowed.
            try device.createIndex("tasks", columns: ["title"])
            try device.execute("INSERT INTO t DEFAULT VALUES")
            #expect(try device.queryOne("SELECT x FROM t")?["x"] == 3)
            #expect(try device.query("SELECT name FROM sqlite_master WHERE tbl_name = 't' AND type = 'table'").count == 1)
        }
    }

    // MARK: - platform

    @Test("platform is sent in connect (protocol 2) and in register (protocol 1)", arguments: [SyncProtocol.two, SyncProtocol.one])
    func platformIsSent(_ syncProtocol: SyncProtocol) async throws {
        try await SyncWorld.run(configure: { $0.syncProtocol = syncProtocol }) { world in
            let recorder = BodyRecordingTransport()
            let device = try world.device("phone", user: SyncWorld.newUser(), transport: recorder) { $0.platform = "android" }
            defer { try? device.close() }
            try await device.start()
            let path = syncProtocol == .two ? "/sync/connect" : "/sync/register"
            let body = try #require(recorder.bodies(path: path).first)
            #expect(body["platform"] as? String == "android")
        }
    }

    // MARK: - Helpers

    /// The ``LocalTableError`` a call was refused with, or nil.
    static func refusal(_ body: () throws -> Void) -> LocalTableError? {
        do {
            try body()
            return nil
        } catch SynchroError.databaseError(let underlying) {
            return underlying as? LocalTableError
        } catch {
            return nil
        }
    }

    static func waitUntil(_ condition: () -> Bool) async throws {
        for _ in 0..<200 where !condition() {
            try await Task.sleep(for: .milliseconds(25))
        }
        #expect(condition())
    }
}

/// The real transport, keeping each request's path and JSON body.
private struct BodyRecordingTransport: HTTPTransport {
    private let sent = Locked<[(path: String, body: Data)]>([])
    private let real = URLSessionTransport()

    func send(_ request: URLRequest) async throws -> (Data, HTTPURLResponse) {
        sent.withLock { $0.append((request.url?.path ?? "", request.httpBody ?? Data())) }
        return try await real.send(request)
    }

    func bodies(path: String) -> [[String: Any]] {
        sent.current.filter { $0.path == path }.compactMap { try? JSONSerialization.jsonObject(with: $0.body) as? [String: Any] }
    }
}

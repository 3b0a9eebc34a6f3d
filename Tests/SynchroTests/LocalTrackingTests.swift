import Foundation
import GRDB
import Testing

@_spi(Testing) @testable import Synchro

/// The triggers and the local pieces, without a server: a schema installed by hand.
@Suite("Local change tracking")
struct LocalTrackingTests {
    static func client() throws -> (SynchroClient, URL) {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("synchro-local-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let client = try SynchroClient(
            config: SynchroConfig(
                dbPath: directory.appendingPathComponent("local.sqlite").path,
                serverURL: URL(fileURLWithPath: "/"),
                authProvider: { "" },
                clientID: "local",
                appVersion: "1.0.0"
            )
        )
        let columns: [(String, LogicalType)] = [("id", .string), ("title", .string), ("done", .boolean), ("updated_at", .datetime), ("deleted_at", .datetime)]
        try client.installSchema(
            version: 1,
            hash: "h",
            tables: [
                SyncTable(
                    tableName: "tasks",
                    pushPolicy: .ownerOnly,
                    primaryKey: ["id"],
                    columns: columns.map {
                        SyncColumn(
                            name: $0.0,
                            dbType: "text",
                            logicalType: $0.1,
                            nullable: true,
                            defaultKind: $0.0 == "done" ? .portable : .none,
                            sqliteDefaultSql: $0.0 == "done" ? "0" : nil,
                            isPrimaryKey: $0.0 == "id"
                        )
                    }
                )
            ]
        )
        return (client, directory)
    }

    /// A client as ``client()`` makes one, and what closes it and removes its folder.
    static func openClient() throws -> (SynchroClient, cleanUp: () -> Void) {
        let (client, directory) = try client()
        return (
            client,
            {
                try? client.close()
                try? FileManager.default.removeItem(at: directory)
            }
        )
    }

    /// The pending queue as a push would read it (the change log folded first).
    static func pending(_ client: SynchroClient) throws -> [String: String] {
        try client.database.write { db in try ChangeLog.fold(in: db) }
        var result: [String: String] = [:]
        for row in try client.query("SELECT record_id, operation, base_updated_at FROM _synchro_pending") {
            result[row["record_id"]] = (row["operation"] as String) + ((row["base_updated_at"] as String?).map { "@\($0)" } ?? "")
        }
        return result
    }

    /// A push batch is read while the one before it is on the wire; what changed in between
    /// is read again when the batch is marked in flight, so nothing stale is sent.
    @Test func aBatchReadAheadIsReadAgainWhereItChanged() throws {
        let (client, cleanUp) = try Self.openClient()
        defer { cleanUp() }
        // An app's trigger: writes under the sync lock (a settlement's) may then reach other
        // records' rows, as the cascade below does.
        try client.execute("CREATE TABLE audit (note TEXT)")
        try client.execute("CREATE TRIGGER app_audit AFTER UPDATE ON tasks BEGIN INSERT INTO audit VALUES (NEW.title); END")
        // e and F (its key in upper case locally, lower case in its pending row) stay as read.
        for id in ["a", "b", "c", "d", "e", "F"] {
            try client.execute("INSERT INTO tasks (id, title) VALUES (?, ?)", params: [id, "first"])
        }
        let schema = try client.engine.currentSchema()
        let keys = try client.database.write { db in try PendingQueue.round(after: 0, rank: schema.pushRank, in: db).keys }
        let read = try client.database.read { db in try PendingQueue.readAhead(keys[...], schema: schema, in: db) }
        #expect(read.compactMap { $0?.outgoing.change.data?["title"] } == Array(repeating: .string("first"), count: 6))
        // Meanwhile: b edited, c created and deleted (its pending row cancels out); under the
        // sync lock (no trigger, as a cascade from a settled parent), a changed and d deleted.
        try client.execute("UPDATE tasks SET title = 'second' WHERE id = 'b'")
        try client.execute("DELETE FROM tasks WHERE id = 'c'")
        try client.database.write { db in
            try MetaStore.withSyncLock(db) {
                try db.execute(sql: "UPDATE tasks SET title = 'cascaded' WHERE id = 'a'")
                try db.execute(sql: "DELETE FROM tasks WHERE id = 'd'")
            }
        }
        let outgoing = try client.database.write { db in try PendingQueue.prepare(keys[...], readAhead: read, schema: schema, in: db) }
        #expect(outgoing.map(\.pending.recordID) == ["a", "b", "e", "f"])
        #expect(outgoing.map { $0.change.data?["title"] } == [.string("cascaded"), .string("second"), .string("first"), .string("first")])
        let inFlight = try client.query("SELECT record_id FROM _synchro_pending WHERE inflight_seq = seq ORDER BY record_id").map { $0["record_id"] as String }
        #expect(inFlight == ["a", "b", "e", "f"])
        // d's pending row went with its local row.
        #expect(try Self.pending(client).keys.sorted() == ["a", "b", "e", "f"])
    }

    @Test func writesCoalesceIntoOnePendingChangePerRecord() throws {
        let (client, cleanUp) = try Self.openClient()
        defer { cleanUp() }
        try client.execute("INSERT INTO tasks (id, title) VALUES ('A', 'a'), ('b', 'b'), ('c', 'c')")
        #expect(try client.queryOne("SELECT done FROM tasks WHERE id = 'a'")?["done"] as Int64? == 0, "the portable default")
        try client.execute("UPDATE tasks SET title = 'a2' WHERE id = 'a'")
        try client.execute("DELETE FROM tasks WHERE id = 'b'")
        #expect(try Self.pending(client) == ["a": "create", "c": "create"], "create+update = create, create+delete = nothing")

        // Records the server knows (applied under the sync lock, so not pending).
        try client.applyPulledRecords([
            SyncRecord(id: "s1", tableName: "tasks", data: ["title": "server"], updatedAt: "2026-01-01T00:00:00.000Z"),
            SyncRecord(id: "s2", tableName: "tasks", data: ["title": "server"], updatedAt: "2026-01-01T00:00:00.000Z"),
        ])
        #expect(try Self.pending(client).count == 2)
        try client.execute("UPDATE tasks SET title = 'x' WHERE id = 's1'")
        try client.execute("UPDATE tasks SET title = 'y', updated_at = '2026-02-02T00:00:00.000Z' WHERE id = 's1'")
        try client.execute("UPDATE tasks SET deleted_at = '2026-03-03T00:00:00.000Z' WHERE id = 's2'")
        let pending = try Self.pending(client)
        #expect(pending["s1"] == "update@2026-01-01T00:00:00.000Z", "the earliest base")
        #expect(pending["s2"] == "delete@2026-01-01T00:00:00.000Z", "a soft delete is a delete")
        try client.execute("UPDATE tasks SET deleted_at = NULL WHERE id = 's2'")
        #expect(try Self.pending(client)["s2"] == "update@2026-01-01T00:00:00.000Z", "delete then un-delete = update")
        #expect(try client.pendingChangeCount() == 4)
    }

    @Test func pulledRecordsRespectPendingAndNewerRows() throws {
        let (client, cleanUp) = try Self.openClient()
        defer { cleanUp() }
        try client.applyPulledRecords([
            SyncRecord(id: "k", tableName: "tasks", data: ["title": "v1", "done": .bool(true)], updatedAt: "2026-01-01T00:00:00.5Z"),
            SyncRecord(id: "gone", tableName: "elsewhere", data: [:], updatedAt: "2026-01-01T00:00:00Z"),
        ])
        #expect(try client.queryOne("SELECT title, done FROM tasks WHERE id = 'k'").map { [$0["title"] as String, String($0["done"] as Int64)] } == ["v1", "1"])
        // An older version does not replace a newer one; fractional digits compare by value.
        try client.applyPulledRecords([SyncRecord(id: "k", tableName: "tasks", data: ["title": "old"], updatedAt: "2026-01-01T00:00:00.49999Z")])
        #expect(try client.queryOne("SELECT title FROM tasks WHERE id = 'k'")?["title"] as String? == "v1")
        try client.applyPulledRecords([SyncRecord(id: "K", tableName: "tasks", data: ["title": "v2"], updatedAt: "2026-01-01T00:00:00.500001Z")])
        #expect(try client.query("SELECT title FROM tasks").map { $0["title"] as String } == ["v2"], "same record whatever the case")
        // A pending local edit is never overwritten by a pull.
        try client.execute("UPDATE tasks SET title = 'mine' WHERE id = 'k'")
        try client.applyPulledRecords([SyncRecord(id: "k", tableName: "tasks", data: ["title": "theirs"], updatedAt: "2027-01-01T00:00:00Z")])
        #expect(try client.queryOne("SELECT title FROM tasks WHERE id = 'k'")?["title"] as String? == "mine")
        // Nor is a pending delete of a row already gone undone; the same page's other rows
        // are written, the key's case whatever it is.
        try client.applyPulledRecords([SyncRecord(id: "d", tableName: "tasks", data: ["title": "d1"], updatedAt: "2026-01-01T00:00:00Z")])
        try client.execute("DELETE FROM tasks WHERE id = 'd'")
        try client.applyPulledRecords([
            SyncRecord(id: "D", tableName: "tasks", data: ["title": "back"], updatedAt: "2027-01-01T00:00:00Z"),
            SyncRecord(id: "K", tableName: "tasks", data: ["title": "theirs"], updatedAt: "2027-01-01T00:00:00Z"),
            SyncRecord(id: "n", tableName: "tasks", data: ["title": "new"], updatedAt: "2027-01-01T00:00:00Z"),
        ])
        let titles = try client.query("SELECT id, title FROM tasks ORDER BY id").map { "\($0["id"] as String)=\($0["title"] as String)" }
        #expect(titles == ["K=mine", "n=new"])
        #expect(try Self.pending(client) == ["k": "update@2026-01-01T00:00:00.500001Z", "d": "delete@2026-01-01T00:00:00Z"])
    }

    /// The echo of a device's own push, or a page pulled again, writes nothing; a new spelling
    /// of the key or a changed value is still written.
    @Test func aPulledRowEqualToTheLocalOneIsNotWritten() throws {
        let (client, cleanUp) = try Self.openClient()
        defer { cleanUp() }
        let record = SyncRecord(id: "e", tableName: "tasks", data: ["title": "same", "done": .bool(false)], updatedAt: "2026-01-01T00:00:00.5Z")
        try client.applyPulledRecords([record])
        try client.execute("CREATE TABLE audit (id TEXT)")
        try client.execute("CREATE TRIGGER audit_tasks AFTER UPDATE ON tasks BEGIN INSERT INTO audit VALUES (new.id); END")
        func writes() throws -> Int64? { try client.queryOne("SELECT COUNT(*) AS n FROM audit")?["n"] }
        try client.applyPulledRecords([record])
        #expect(try writes() == 0, "an equal row is not written")
        try client.applyPulledRecords([SyncRecord(id: "E", tableName: "tasks", data: record.data, updatedAt: record.updatedAt)])
        #expect(try client.queryOne("SELECT id FROM tasks")?["id"] as String? == "E", "the key's new spelling is taken")
        try client.applyPulledRecords([SyncRecord(id: "E", tableName: "tasks", data: ["title": "same", "done": .bool(true)], updatedAt: record.updatedAt)])
        #expect(try client.queryOne("SELECT done FROM tasks")?["done"] as Int64? == 1)
        #expect(try writes() == 2)
        #expect(try client.pendingChangeCount() == 0)
    }

    @Test func backoffFollowsTheProtocol() {
        for attempt in 1...8 {
            let base = min(pow(2, Double(attempt - 1)), 16)
            let delay = Backoff.delay(afterAttempt: attempt, retryAfter: nil)
            #expect(delay >= base && delay <= base * 1.5, "attempt \(attempt): \(delay)")
        }
        #expect(Backoff.delay(afterAttempt: 3, retryAfter: 7) == 7)
    }

    @Test func serverSchemasAreCheckedBeforeTouchingTheDatabase() {
        #expect(LocalTable.literalDefault("'it''s'") == "'it''s'")
        #expect(LocalTable.literalDefault("-2.5") == "-2.5")
        #expect(LocalTable.literalDefault("now()") == nil)
        #expect(LocalTable.literalDefault("'a'); DROP TABLE x; --") == nil)
        let bad = SyncTable(tableName: "t", pushPolicy: .ownerOnly, columns: [SyncColumn(name: "a", dbType: "text", logicalType: .string, nullable: true)])
        #expect(throws: SynchroError.self) { try LocalTable(bad) }
        // A double quote would end GRDB's quoting of the name in the local DDL.
        let injecting = SyncTable(tableName: "t\" (x); DROP TABLE tasks; --", pushPolicy: .ownerOnly, columns: Self.columns)
        #expect(throws: SynchroError.self) { try LocalTable(injecting) }
        let injectingColumn = SyncTable(
            tableName: "t",
            pushPolicy: .ownerOnly,
            columns: Self.columns + [SyncColumn(name: "a\" TEXT, \"b", dbType: "text", logicalType: .string, nullable: true)]
        )
        #expect(throws: SynchroError.self) { try LocalTable(injectingColumn) }
        let parent = SyncTable(tableName: "p", pushPolicy: .ownerOnly, columns: Self.columns)
        let child = SyncTable(tableName: "c", pushPolicy: .ownerOnly, parentTable: "p", parentFkCol: "id", dependencies: ["p"], columns: Self.columns)
        let grandchild = SyncTable(tableName: "g", pushPolicy: .ownerOnly, dependencies: ["c"], columns: Self.columns)
        let schema = try? LocalSchema(version: 1, hash: "h", tables: [grandchild, child, parent])
        #expect(schema?.pushRank == ["p": 0, "c": 1, "g": 2])
    }

    static let columns = ["id", "updated_at", "deleted_at"].map { SyncColumn(name: $0, dbType: "text", logicalType: .string, nullable: true) }
}

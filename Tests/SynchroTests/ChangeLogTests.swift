import Foundation
import GRDB
import SelfDBTestSupport
import Testing

@_spi(Testing) @testable import Synchro

/// The change log (`_synchro_changes`): the triggers append, a fold coalesces. The queue a
/// push reads must be what the previous version's triggers, coalescing each write as it
/// happened, would have made.
@Suite("Change log")
struct ChangeLogTests {
    /// Random histories of writes to a few records (keys in either case, soft and hard deletes,
    /// un-deletes, explicit `updated_at`s), with pushes marking the queue in flight and
    /// settling it at random moments. One client has the previous version's triggers
    /// (``installReferenceTriggers(on:)``, coalescing at each write); the other logs and folds only where
    /// a push reads the queue. Their queues agree at every push, in content and in push order.
    @Test(arguments: [UInt64(1), 2, 3, 4])
    func foldingGivesWhatCoalescingEachWriteGave(seed: UInt64) throws {
        let (reference, cleanUpReference) = try LocalTrackingTests.openClient()
        defer { cleanUpReference() }
        let (late, cleanUpLate) = try LocalTrackingTests.openClient()
        defer { cleanUpLate() }
        try Self.installReferenceTriggers(on: reference)
        var random = SplitMix64(seed: seed)
        let keys = ["k0", "k1", "k2", "k3"]
        var logged = 0
        for step in 0..<300 {
            let key = keys[Int.random(in: 0..<keys.count, using: &random)]
            let spelled = Bool.random(using: &random) ? key.uppercased() : key
            let row = try reference.queryOne("SELECT deleted_at FROM tasks WHERE id = ?", params: [key])
            let statement: (sql: String, params: [(any DatabaseValueConvertible)?])
            switch (Int.random(in: 0..<10, using: &random), row) {
            case (8..., _):
                // A push: what it reads must agree. Then the server takes the batch, or not.
                logged += try late.queryOne("SELECT COUNT(*) AS n FROM _synchro_changes")?["n"] ?? 0
                try expectSameQueue(reference, late, at: step)
                let taken = Bool.random(using: &random)
                for client in [reference, late] { try Self.push(client, taken: taken) }
                continue
            case (_, nil):
                statement = ("INSERT INTO tasks (id, title, updated_at) VALUES (?, ?, ?)", [spelled, "t\(step)", Self.time(step)])
            case (0..<3, _):
                statement = ("UPDATE tasks SET title = ? WHERE id = ?", ["t\(step)", spelled])
            case (3..<5, _):
                statement = ("UPDATE tasks SET title = ?, updated_at = ? WHERE id = ?", ["t\(step)", Self.time(step), spelled])
            case (5..<7, let row?):
                let deleted = row["deleted_at"] as String? == nil ? Self.time(step) : nil
                statement = ("UPDATE tasks SET deleted_at = ? WHERE id = ?", [deleted, spelled])
            default:
                statement = ("DELETE FROM tasks WHERE id = ?", [spelled])
            }
            for client in [reference, late] { try client.execute(statement.sql, params: statement.params) }
        }
        try expectSameQueue(reference, late, at: 300)
        #expect(try late.pendingChangeCount() == (try reference.pendingChangeCount()))
        #expect(logged > 100, "the pushes found writes waiting in the log: \(logged)")
        #expect(try reference.query("SELECT COUNT(*) AS n FROM _synchro_changes").first?["n"] == 0, "the reference logs nothing")
    }

    /// Gives `client` the previous version's triggers: each write coalesced straight into
    /// `_synchro_pending`, a create and a delete that cancel out removed at once.
    static func installReferenceTriggers(on client: SynchroClient) throws {
        func record(_ id: String, _ operation: String, _ base: String, cancel: Bool) -> String {
            """
            INSERT INTO _synchro_pending (table_name, record_id, operation, base_updated_at, client_updated_at)
                VALUES ('tasks', lower(\(id)), \(operation), \(base), strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))
                ON CONFLICT (table_name, record_id) DO UPDATE SET
                    operation = CASE
                        WHEN operation = 'create' AND excluded.operation = 'delete'
                            THEN CASE WHEN inflight_seq IS NULL THEN '__drop' ELSE 'delete' END
                        WHEN operation = 'create' THEN 'create'
                        WHEN excluded.operation = 'create' THEN 'update'
                        ELSE excluded.operation END,
                    base_updated_at = CASE WHEN operation = 'create' THEN NULL
                        ELSE COALESCE(base_updated_at, excluded.base_updated_at) END,
                    client_updated_at = excluded.client_updated_at,
                    seq = (SELECT MAX(seq) + 1 FROM _synchro_pending);
            \(cancel ? "DELETE FROM _synchro_pending WHERE table_name = 'tasks' AND record_id = lower(\(id)) AND operation = '__drop';" : "")
            """
        }
        let names = ChangeTriggers.names(of: "tasks").map(\.quotedDatabaseIdentifier)
        try client.database.write { db in
            try ChangeTriggers.drop(for: "tasks", in: db)
            try db.execute(
                sql: """
                    CREATE TRIGGER \(names[0]) AFTER INSERT ON tasks WHEN NOT EXISTS (SELECT 1 FROM _synchro_lock) BEGIN
                        \(record("NEW.id", "'create'", "NULL", cancel: false))
                    END;
                    CREATE TRIGGER \(names[1]) AFTER UPDATE ON tasks WHEN NOT EXISTS (SELECT 1 FROM _synchro_lock) BEGIN
                        \(record("NEW.id", """
                            CASE WHEN OLD.deleted_at IS NULL AND NEW.deleted_at IS NOT NULL THEN 'delete'
                                 WHEN OLD.deleted_at IS NOT NULL AND NEW.deleted_at IS NULL THEN 'create'
                                 ELSE 'update' END
                            """, "OLD.updated_at", cancel: true))
                    END;
                    CREATE TRIGGER \(names[2]) AFTER DELETE ON tasks WHEN NOT EXISTS (SELECT 1 FROM _synchro_lock) BEGIN
                        \(record("OLD.id", "'delete'", "OLD.updated_at", cancel: true))
                    END;
                    """
            )
        }
    }

    /// A push as the engine makes one, on the queue alone: read (folding), mark in flight, and
    /// settle — a change unchanged since it was sent goes, one edited meanwhile stays.
    static func push(_ client: SynchroClient, taken: Bool) throws {
        try client.database.write { db in
            _ = try PendingQueue.round(after: 0, rank: [:], in: db)
            try db.execute(sql: "UPDATE _synchro_pending SET inflight_seq = seq")
        }
        guard taken else { return }
        try client.database.write { db in
            try MetaStore.withSyncLock(db) {
                try db.execute(sql: "DELETE FROM _synchro_pending WHERE inflight_seq = seq")
                try db.execute(sql: "UPDATE _synchro_pending SET inflight_seq = NULL")
            }
        }
    }

    static func time(_ step: Int) -> String {
        "2026-01-01T00:00:\(String(format: "%02d", step % 60)).\(String(format: "%03d", step))Z"
    }

    /// The queue as a push reads it: in push order, each record's operation, base, and whether
    /// it is in flight unchanged, in flight and changed since, or not in flight.
    static func queue(_ client: SynchroClient) throws -> [String] {
        try client.database.write { db in
            _ = try PendingQueue.round(after: 0, rank: [:], in: db)
            return try Row.fetchAll(
                db,
                sql: """
                    SELECT record_id, operation, base_updated_at,
                        CASE WHEN inflight_seq IS NULL THEN 'idle' WHEN inflight_seq = seq THEN 'sent' ELSE 'edited' END AS flight
                    FROM _synchro_pending ORDER BY seq
                    """
            ).map { row in
                "\(row["record_id"] as String) \(row["operation"] as String) \(row["base_updated_at"] as String? ?? "-") \(row["flight"] as String)"
            }
        }
    }

    private func expectSameQueue(_ reference: SynchroClient, _ late: SynchroClient, at step: Int) throws {
        let (expected, actual) = (try Self.queue(reference), try Self.queue(late))
        #expect(actual == expected, "step \(step)")
    }

    /// `pendingChangeCount()` counts what a push would send, whether the log was folded or not:
    /// a create and a delete that cancel out count nothing.
    @Test func theCountFoldsTheLogFirst() throws {
        let (client, cleanUp) = try LocalTrackingTests.openClient()
        defer { cleanUp() }
        try client.execute("INSERT INTO tasks (id, title) VALUES ('a', 'a'), ('b', 'b')")
        try client.execute("DELETE FROM tasks WHERE id = 'B'")
        #expect(try client.query("SELECT COUNT(*) AS n FROM _synchro_changes").first?["n"] == 3, "the writes wait in the log")
        #expect(try client.query("SELECT COUNT(*) AS n FROM _synchro_pending").first?["n"] == 0)
        #expect(try client.pendingChangeCount() == 1)
        #expect(try client.query("SELECT record_id, operation FROM _synchro_pending").map { "\($0["record_id"] as String) \($0["operation"] as String)" } == ["a create"])
        #expect(try client.pendingChangeCount() == 1, "read again, without a fold")
    }

    /// The log keeps a write's time as a Julian day; the queue has it as the text the server's
    /// conflict rule reads, to the millisecond, for any millisecond.
    @Test func theTimeOfAWriteIsKeptToTheMillisecond() throws {
        let (client, cleanUp) = try LocalTrackingTests.openClient()
        defer { cleanUp() }
        var random = SplitMix64(seed: 7)
        try client.database.write { db in
            for index in 0..<2_000 {
                // A second somewhere in 1970–2199, and every millisecond of a second at least once.
                let seconds = Int64.random(in: 0..<7_258_118_400, using: &random)
                let milliseconds = index < 1_000 ? index : Int.random(in: 0..<1_000, using: &random)
                try db.execute(
                    sql: """
                        INSERT INTO _synchro_changes (table_name, record_id, operation, written_at)
                        SELECT 'tasks', time, 'create', julianday(time)
                        FROM (SELECT strftime('%Y-%m-%dT%H:%M:%S', ?, 'unixepoch') || printf('.%03dZ', ?) AS time)
                        """,
                    arguments: [seconds, milliseconds]
                )
            }
            try ChangeLog.fold(in: db)
        }
        // The key is the time written (lower-cased by the fold, as every key is).
        let differing = try client.query("SELECT client_updated_at AS folded, upper(record_id) AS written FROM _synchro_pending WHERE folded != written LIMIT 5")
        #expect(differing.map { "\($0["written"] as String) → \($0["folded"] as String)" } == [])
        #expect(try client.pendingChangeCount() == 2_000)

        // A write through the triggers: now, in the same form.
        let before = Date()
        try client.execute("INSERT INTO tasks (id, title) VALUES ('now', 'n')")
        _ = try LocalTrackingTests.pending(client)
        let written = try #require(try client.queryOne("SELECT client_updated_at FROM _synchro_pending WHERE record_id = 'now'")?["client_updated_at"] as String?)
        let parsed = try Date.ISO8601FormatStyle(includingFractionalSeconds: true).parse(written)
        #expect(written.count == 24, "\(written)")
        #expect(abs(parsed.timeIntervalSince(before)) < 60)
    }

    /// A database an earlier version wrote has triggers that coalesce into the queue directly:
    /// opened again, it gets the log's triggers, and what its old triggers queued is kept.
    @Test func triggersOfAnEarlierVersionAreReplacedAtOpen() throws {
        let (client, directory) = try LocalTrackingTests.client()
        defer { try? FileManager.default.removeItem(at: directory) }
        let name = ChangeTriggers.names(of: "tasks")[0].quotedDatabaseIdentifier
        try client.database.write { db in
            try db.execute(
                sql: """
                    DROP TRIGGER \(name);
                    CREATE TRIGGER \(name) AFTER INSERT ON tasks WHEN NOT EXISTS (SELECT 1 FROM _synchro_lock) BEGIN
                        INSERT INTO _synchro_pending (table_name, record_id, operation, client_updated_at)
                        VALUES ('tasks', lower(NEW.id), 'create', strftime('%Y-%m-%dT%H:%M:%fZ', 'now'));
                    END;
                    """
            )
        }
        try client.execute("INSERT INTO tasks (id, title) VALUES ('Old', 'queued by the old trigger')")
        #expect(try client.query("SELECT COUNT(*) AS n FROM _synchro_changes").first?["n"] == 0)
        let path = client.config.dbPath
        try client.close()

        let reopened = try SynchroClient(config: SynchroConfig(dbPath: path, serverURL: URL(fileURLWithPath: "/"), authProvider: { "" }, clientID: "local", appVersion: "1.0.0"))
        defer { try? reopened.close() }
        let sql = try reopened.queryOne("SELECT sql FROM sqlite_master WHERE type = 'trigger' AND name = ?", params: [ChangeTriggers.names(of: "tasks")[0]])
        #expect((sql?["sql"] as String?)?.contains("_synchro_changes") == true)
        try reopened.execute("INSERT INTO tasks (id, title) VALUES ('new', 'logged')")
        #expect(try reopened.query("SELECT COUNT(*) AS n FROM _synchro_changes").first?["n"] == 1)
        #expect(try LocalTrackingTests.pending(reopened) == ["old": "create", "new": "create"])
    }
}

extension ChangeLogTests {
    /// A batch read ahead holds a delete; the record is written again before the batch is
    /// marked, and that write is still in the log (no sync transaction in between). Marking
    /// folds it first: the delete is not sent, the record's change as it now stands is.
    @Test func markingABatchFoldsWritesMadeAfterItsReadAhead() throws {
        let (client, cleanUp) = try LocalTrackingTests.openClient()
        defer { cleanUp() }
        try client.applyPulledRecords([
            SyncRecord(id: "x", tableName: "tasks", data: ["title": "server"], updatedAt: "2026-01-01T00:00:00.000Z")
        ])
        try client.execute("DELETE FROM tasks WHERE id = 'x'")
        let schema = try client.engine.currentSchema()
        let keys = try client.database.write { db in try PendingQueue.round(after: 0, rank: schema.pushRank, in: db).keys }
        let read = try client.database.read { db in try PendingQueue.readAhead(keys[...], schema: schema, in: db) }
        #expect(read.map { $0?.outgoing.change.operation } == [.delete])

        try client.execute("INSERT INTO tasks (id, title) VALUES ('X', 'back')")
        #expect(try client.queryOne("SELECT COUNT(*) AS n FROM _synchro_changes")?["n"] == 1)
        let outgoing = try client.database.write { db in try PendingQueue.prepare(keys[...], readAhead: read, schema: schema, in: db) }
        #expect(outgoing.map(\.change.operation) == [.update], "a delete then a create is an update")
        #expect(outgoing.first?.change.data?["title"] == .string("back"))
    }

    /// With no sync to fold it, the log does not grow past ``ChangeLog/longLog`` writes: the
    /// write that reaches that length folds it in its own transaction.
    @Test func aLongLogIsFoldedByTheWriteThatMakesItLong() throws {
        let (client, cleanUp) = try LocalTrackingTests.openClient()
        defer { cleanUp() }
        let length = Int(ChangeLog.longLog)
        try client.withWritePreparedStatement("INSERT INTO tasks (id, title) VALUES (?, 't')") { statement in
            for index in 0..<(length - 2) { try statement.execute(arguments: ["r\(index)"]) }
        }
        try client.execute("UPDATE tasks SET title = 'u' WHERE id = 'r0'")
        #expect(try client.queryOne("SELECT COUNT(*) AS n FROM _synchro_changes")?["n"] == length - 1)
        try client.execute("UPDATE tasks SET title = 'v' WHERE id = 'r1'")
        #expect(try client.queryOne("SELECT COUNT(*) AS n FROM _synchro_changes")?["n"] == 0)
        #expect(try client.queryOne("SELECT COUNT(*) AS n FROM _synchro_pending")?["n"] == length - 2, "one pending change per record")
    }
}

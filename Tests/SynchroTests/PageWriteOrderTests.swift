import Foundation
import GRDB
import SelfDBRuntime
import Testing

@_spi(Testing) @testable import Synchro

/// A page is written in key order, many rows to a statement: the order SQLite's `NOCASE`
/// gives, one record's changes in the page's order, the page's own order when an app's trigger
/// could see the difference; and the result is the one the page applied change by change gives.
@Suite("The order a page is written in")
struct PageWriteOrderTests {
    private struct Item {
        let table: String
        let id: String
    }

    private static func positions(_ items: [Item], in db: Database) throws -> [Int] {
        try WriteOrder.positions(of: items, in: db, key: { (table: $0.table, id: $0.id) })
    }

    @Test func byTableThenKeyWithLettersFoldedAndTiesInPageOrder() throws {
        let queue = try DatabaseQueue()
        let items = [
            Item(table: "tasks", id: "b"), Item(table: "comments", id: "z"), Item(table: "tasks", id: "A"),
            Item(table: "tasks", id: "a"), Item(table: "tasks", id: "_"), Item(table: "tasks", id: "B"),
            Item(table: "tasks", id: "\u{e9}"), Item(table: "task", id: "zz"),
        ]
        let orders = try queue.read { db in
            try [items, [], [items[0]], [items[2], items[0], items[6]]].map { try Self.positions($0, in: db) }
        }
        // "_" (0x5F) sorts after "A"…"Z" in bytes but before "a": NOCASE folds the letters.
        #expect(orders[0] == [1, 7, 4, 2, 3, 0, 5, 6])
        #expect(orders[1].isEmpty)
        #expect(orders[2] == [0])
        // Already in order: the page's order, untouched.
        #expect(orders[3] == [0, 1, 2])
    }

    @Test func aTableWithAnAppTriggerKeepsThePageOrder() throws {
        let queue = try DatabaseQueue()
        try queue.write { db in
            try db.execute(
                sql: """
                    CREATE TABLE tasks (id TEXT PRIMARY KEY); CREATE TABLE log (id TEXT); CREATE TABLE other (id TEXT);
                    CREATE TRIGGER _synchro_tasks_insert AFTER INSERT ON tasks BEGIN INSERT INTO log VALUES (NEW.id); END;
                    """
            )
            let items = [Item(table: "tasks", id: "b"), Item(table: "tasks", id: "a")]
            #expect(try Self.positions(items, in: db) == [1, 0])
            // A trigger on another table changes nothing here.
            try db.execute(sql: "CREATE TRIGGER app_other AFTER INSERT ON other BEGIN SELECT 1; END")
            #expect(try Self.positions(items, in: db) == [1, 0])
            // A temporary trigger counts too.
            try db.execute(sql: "CREATE TEMP TRIGGER app_temporary AFTER INSERT ON main.tasks BEGIN SELECT 1; END")
            #expect(try Self.positions(items, in: db) == [0, 1])
            try db.execute(sql: "DROP TRIGGER app_temporary")
            #expect(try Self.positions(items, in: db) == [1, 0])
            try db.execute(sql: "CREATE TRIGGER app_last_task AFTER INSERT ON tasks BEGIN INSERT INTO log VALUES (NEW.id); END")
            #expect(try Self.positions(items, in: db) == [0, 1])
        }
    }

    /// An app's trigger sees the rows of a page in the order the server sent them.
    @Test func anAppTriggerSeesThePageInItsOrder() throws {
        let (client, cleanUp) = try LocalTrackingTests.openClient()
        defer { cleanUp() }
        try client.execute("CREATE TABLE arrivals (n INTEGER PRIMARY KEY, id TEXT)")
        try client.execute("CREATE TRIGGER app_arrivals AFTER INSERT ON tasks BEGIN INSERT INTO arrivals (id) VALUES (NEW.id); END")
        let ids = (0..<150).map { _ in UUID().uuidString.lowercased() }
        let page = Self.page(ids.map { Self.upsert($0, scope: "s1") })
        _ = try client.applyPullPage(page, adding: ["s1"])
        let arrived = try client.query("SELECT id FROM arrivals ORDER BY n").map { $0["id"] as String? }
        #expect(arrived == ids)
    }

    /// Random pages over a few records and scopes (live rows, tombstones sent as upserts,
    /// deletes with and without a row, keys in either case, records repeated), applied whole
    /// on one device and change by change on another: both hold the same rows and provenance.
    @Test(arguments: 1...6)
    func aPageWrittenInKeyOrderEndsAsItsChangesOneByOne(seed: UInt64) throws {
        var random = SeededRandom(seed: seed)
        let ids = (0..<40).map { _ in UUID().uuidString.lowercased() }
        let scopes = ["s1", "s2", "s3"]
        var changes: [ChangeRecord] = []
        for step in 0..<400 {
            let id = ids[Int(random.next() % UInt64(ids.count))]
            let spelled = random.next() % 4 == 0 ? id.uppercased() : id
            let scope = scopes[Int(random.next() % UInt64(scopes.count))]
            let time = String(format: "2026-11-28T10:%02d:%02d.000Z", step / 60, step % 60)
            switch random.next() % 6 {
            case 0: changes.append(Self.delete(spelled, scope: scope, tombstone: nil))
            case 1: changes.append(Self.delete(spelled, scope: scope, tombstone: time))
            case 2: changes.append(Self.upsert(spelled, scope: scope, time: time, deletedAt: time))
            default: changes.append(Self.upsert(spelled, scope: scope, time: time, title: "step \(step)"))
            }
        }
        let (whole, cleanUpWhole) = try LocalTrackingTests.openClient()
        defer { cleanUpWhole() }
        let (oneByOne, cleanUpOneByOne) = try LocalTrackingTests.openClient()
        defer { cleanUpOneByOne() }
        _ = try whole.applyPullPage(Self.page(changes), adding: scopes)
        for scope in scopes { _ = try oneByOne.applyPullPage(Self.page([]), adding: [scope]) }
        for change in changes { _ = try oneByOne.applyPullPage(Self.page([change])) }
        let tasks = "SELECT id, title, updated_at, deleted_at FROM tasks ORDER BY lower(id)"
        let provenance = "SELECT scope_id, table_name, lower(record_id) AS record_id, checksum FROM _synchro_scope_rows ORDER BY 1, 2, 3"
        #expect(try whole.query(tasks) == oneByOne.query(tasks))
        #expect(try whole.query(provenance) == oneByOne.query(provenance))
        #expect(try !whole.query(tasks).isEmpty)
        // Each scope's kept sum is the sum of the rows it holds, however the page got there.
        for client in [whole, oneByOne] {
            for scope in scopes {
                let kept = try client.queryOne("SELECT local_checksum AS sum FROM _synchro_scopes WHERE scope_id = ?", params: [scope])
                let held = try client.query("SELECT checksum FROM _synchro_scope_rows WHERE scope_id = ?", params: [scope])
                let summed = held.map { Int32(truncatingIfNeeded: $0["checksum"] as Int64) }.reduce(0, ^)
                #expect(kept?["sum"] == Int64(summed), "scope \(scope)")
            }
        }
    }

    // MARK: - Pages

    private static func page(_ changes: [ChangeRecord]) -> ScopedPullResponse {
        ScopedPullResponse(
            changes: changes,
            scopeSetVersion: 1,
            scopeCursors: [:],
            scopeUpdates: ScopeDelta(add: [], remove: []),
            rebuild: [],
            hasMore: false,
            checksums: nil
        )
    }

    private static func row(_ id: String, time: String, title: String, deletedAt: String?) -> [String: JSONValue] {
        ["id": .string(id), "title": .string(title), "done": .bool(false), "updated_at": .string(time), "deleted_at": deletedAt.map(JSONValue.string) ?? .null]
    }

    private static func upsert(_ id: String, scope: String, time: String = "2026-11-28T10:00:00.000Z", title: String = "t", deletedAt: String? = nil) -> ChangeRecord {
        ChangeRecord(
            scope: scope,
            table: "tasks",
            op: .upsert,
            pk: ["id": id],
            row: row(id, time: time, title: title, deletedAt: deletedAt),
            // Any 32-bit value, negative ones too (the sums are kept in 64-bit columns).
            rowChecksum: Int64(Int32(truncatingIfNeeded: (id + title).utf8.reduce(0) { $0 &* 31 &+ Int($1) })),
            serverVersion: time
        )
    }

    private static func delete(_ id: String, scope: String, tombstone: String?) -> ChangeRecord {
        ChangeRecord(
            scope: scope,
            table: "tasks",
            op: .delete,
            pk: ["id": id],
            row: tombstone.map { row(id, time: $0, title: "gone", deletedAt: $0) },
            rowChecksum: nil,
            serverVersion: tombstone ?? "2026-11-28T10:00:00.000Z"
        )
    }
}

/// SplitMix64: the same pages for the same seed on every run.
private struct SeededRandom {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

import Benchmark
import CRDTSQLite
import Foundation
import SelfDBStore

/// The local store against the raw sqlite3 C API doing the same work in the same run
/// (target ≤ 1.3×), CRDT tracking overhead on local inserts and updates (target ≤ 2×), merge
/// throughput of a 100,000-change batch (targets ≥ 250,000/s into an empty replica, ≥ 200,000/s
/// into a conflicting one) and the change feed (≥ 1,000,000 changes/s).
let benchmarks: @Sendable () -> Void = {
    Benchmark.defaultConfiguration = .init(metrics: [.wallClock], timeUnits: .microseconds, maxDuration: .seconds(10), maxIterations: 10)
    let rows = 100_000

    Benchmark("Store: insert 100,000 rows in one transaction") { benchmark in
        let db = try SQLite()
        try db.executeScript("CREATE TABLE t (id INTEGER PRIMARY KEY, name TEXT, score REAL)")
        benchmark.startMeasurement()
        let insert = try db.prepare("INSERT INTO t (id, name, score) VALUES (?, ?, ?)")
        try db.transaction {
            for id in 0..<rows { try insert.execute(id, "name \(id)", Double(id) / 3) }
        }
        benchmark.stopMeasurement()
    }

    Benchmark("Raw sqlite3: insert 100,000 rows in one transaction") { benchmark in
        let db = try RawSQLite()
        try db.exec("CREATE TABLE t (id INTEGER PRIMARY KEY, name TEXT, score REAL)")
        benchmark.startMeasurement()
        try db.insertRows(rows)
        benchmark.stopMeasurement()
    }

    Benchmark("Store: read 100,000 rows") { benchmark in
        let db = try StoreTable.make(rows: rows)
        benchmark.startMeasurement()
        blackHole(try StoreTable.readRows(db))
        benchmark.stopMeasurement()
    }

    Benchmark("Store: read 100,000 rows in place (forEachRow)") { benchmark in
        let db = try StoreTable.make(rows: rows)
        benchmark.startMeasurement()
        blackHole(try StoreTable.readInPlace(db))
        benchmark.stopMeasurement()
    }

    Benchmark("Raw sqlite3: read 100,000 rows") { benchmark in
        let db = try RawSQLite()
        try db.exec("CREATE TABLE t (id INTEGER PRIMARY KEY, name TEXT, score REAL)")
        try db.insertRows(rows)
        benchmark.startMeasurement()
        blackHole(try db.readRows())
        benchmark.stopMeasurement()
    }

    let writes = 10_000
    Benchmark("CRDT: 10,000 local inserts, tracking off") { benchmark in
        let db = try CRDTSQLite<Int64>(path: ":memory:", nodeId: 1)
        try db.execute("CREATE TABLE t (id INTEGER PRIMARY KEY, name TEXT, score REAL)")
        benchmark.startMeasurement()
        try localWrites(db, count: writes)
        benchmark.stopMeasurement()
    }

    Benchmark("CRDT: 10,000 local inserts, tracking on") { benchmark in
        let db = try CRDTSQLite<Int64>(path: ":memory:", nodeId: 1)
        try db.execute("CREATE TABLE t (id INTEGER PRIMARY KEY, name TEXT, score REAL)")
        try db.enableCRDT(for: "t")
        benchmark.startMeasurement()
        try localWrites(db, count: writes)
        benchmark.stopMeasurement()
    }

    Benchmark("CRDT: 10,000 single-column updates, tracking off") { benchmark in
        let db = try CRDTSQLite<Int64>(path: ":memory:", nodeId: 1)
        try db.execute("CREATE TABLE t (id INTEGER PRIMARY KEY, name TEXT, score REAL)")
        try localWrites(db, count: writes)
        benchmark.startMeasurement()
        try localUpdates(db, count: writes)
        benchmark.stopMeasurement()
    }

    Benchmark("CRDT: 10,000 single-column updates, tracking on") { benchmark in
        let db = try CRDTSQLite<Int64>(path: ":memory:", nodeId: 1)
        try db.execute("CREATE TABLE t (id INTEGER PRIMARY KEY, name TEXT, score REAL)")
        try db.enableCRDT(for: "t")
        try localWrites(db, count: writes)
        benchmark.startMeasurement()
        try localUpdates(db, count: writes)
        benchmark.stopMeasurement()
    }

    // Building the 300,000-change source takes longer than reading it: fewer samples.
    Benchmark("CRDT: getChangesSince(0) over 300,000 changes", configuration: .init(metrics: [.wallClock], maxDuration: .seconds(20), maxIterations: 5)) { benchmark in
        let source = try MergeFixture.replica(nodeId: 3)
        try localWrites(source, count: 100_000)
        benchmark.startMeasurement()
        blackHole(try source.getChangesSince(0))
        benchmark.stopMeasurement()
    }

    Benchmark("CRDT: merge 100,000 changes into an empty replica") { benchmark in
        let changes = try MergeFixture.changes()
        let target = try MergeFixture.replica(nodeId: 2)
        benchmark.startMeasurement()
        blackHole(try target.mergeChanges(changes))
        benchmark.stopMeasurement()
    }

    Benchmark("CRDT: merge 100,000 changes into a conflicting replica") { benchmark in
        let changes = try MergeFixture.changes()
        let target = try MergeFixture.replica(nodeId: 2)
        // The same ids written locally first: every cell is compared, about half win.
        try target.connection.transaction {
            let insert = try target.connection.prepare("INSERT INTO t (id, name, score) VALUES (?, ?, ?)")
            for id in 0..<MergeFixture.records { try insert.execute(id, "local \(id)", Double(id)) }
        }
        benchmark.startMeasurement()
        blackHole(try target.mergeChanges(changes))
        benchmark.stopMeasurement()
    }
}

func localWrites(_ db: CRDTSQLite<Int64>, count: Int) throws {
    let insert = try db.connection.prepare("INSERT INTO t (id, name, score) VALUES (?, ?, ?)")
    try db.connection.transaction {
        for id in 0..<count { try insert.execute(id, "name \(id)", Double(id)) }
    }
}

/// Sets `score` of every row written by `localWrites`, one statement per row, in one transaction.
func localUpdates(_ db: CRDTSQLite<Int64>, count: Int) throws {
    let update = try db.connection.prepare("UPDATE t SET score = ? WHERE id = ?")
    try db.connection.transaction {
        for id in 0..<count { try update.execute(Double(id) + 0.5, id) }
    }
}

enum MergeFixture {
    /// 33,334 records: one record-level change and two cells each, 100,002 changes.
    static let records = 33_334

    static func replica(nodeId: UInt64) throws -> CRDTSQLite<Int64> {
        let db = try CRDTSQLite<Int64>(path: ":memory:", nodeId: nodeId)
        try db.execute("CREATE TABLE t (id INTEGER PRIMARY KEY, name TEXT, score REAL)")
        try db.enableCRDT(for: "t")
        return db
    }

    static func changes() throws -> [Change<Int64>] {
        let source = try replica(nodeId: 3)
        try localWrites(source, count: records)
        return try source.getChangesSince(0)
    }
}

/// The same work on the bare C API, for the comparison.
final class RawSQLite {
    private var db: OpaquePointer?

    init() throws {
        // The store's own flags (no per-connection mutex), so the ratio is the store's overhead.
        guard sqlite3_open_v2(":memory:", &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX, nil) == SQLITE_OK else { throw RawError.failed("open") }
    }

    deinit { sqlite3_close(db) }

    func exec(_ sql: String) throws {
        guard sqlite3_exec(db, sql, nil, nil, nil) == SQLITE_OK else { throw RawError.failed(sql) }
    }

    func insertRows(_ count: Int) throws {
        try exec("BEGIN")
        var statement: OpaquePointer?
        sqlite3_prepare_v2(db, "INSERT INTO t (id, name, score) VALUES (?, ?, ?)", -1, &statement, nil)
        defer { sqlite3_finalize(statement) }
        for id in 0..<count {
            sqlite3_reset(statement)
            sqlite3_bind_int64(statement, 1, Int64(id))
            sqlite3_bind_text(statement, 2, "name \(id)", -1, SQLITE_TRANSIENT)
            sqlite3_bind_double(statement, 3, Double(id) / 3)
            guard sqlite3_step(statement) == SQLITE_DONE else { throw RawError.failed("insert") }
        }
        try exec("COMMIT")
    }

    func readRows() throws -> Double {
        var statement: OpaquePointer?
        sqlite3_prepare_v2(db, "SELECT id, name, score FROM t", -1, &statement, nil)
        defer { sqlite3_finalize(statement) }
        var total = 0.0
        while sqlite3_step(statement) == SQLITE_ROW {
            let id = sqlite3_column_int64(statement, 0)
            let name = sqlite3_column_text(statement, 1).map { String(cString: $0) } ?? ""
            total += Double(id) + sqlite3_column_double(statement, 2) + Double(name.utf8.count)
        }
        return total
    }

    enum RawError: Error { case failed(String) }
}

/// A store with a table `t (id, name, score)` of `rows` rows, for the read benchmarks.
enum StoreTable {
    static func make(rows: Int) throws -> SQLite {
        let db = try SQLite()
        try db.executeScript("CREATE TABLE t (id INTEGER PRIMARY KEY, name TEXT, score REAL)")
        let insert = try db.prepare("INSERT INTO t (id, name, score) VALUES (?, ?, ?)")
        try db.transaction { for id in 0..<rows { try insert.execute(id, "name \(id)", Double(id) / 3) } }
        return db
    }

    // The reads are plain functions, as the raw baseline's is: in the benchmark's async
    // closure a captured running total would be a heap box checked on every access.

    /// Reads every row through `Row`.
    static func readRows(_ db: SQLite) throws -> Double {
        var total = 0.0
        let query = try db.execute("SELECT id, name, score FROM t")
        while let row = try query.nextRow() {
            let id: Int64? = row[0]
            let name: String? = row[1]
            let score: Double? = row[2]
            total += Double(id ?? 0) + (score ?? 0) + Double(name?.utf8.count ?? 0)
        }
        return total
    }

    /// Reads every row in place.
    static func readInPlace(_ db: SQLite) throws -> Double {
        var total = 0.0
        try db.execute("SELECT id, name, score FROM t").forEachRow { row in
            let id = row.int64(0)
            let name = row.string(1)
            let score = row.double(2)
            total += Double(id ?? 0) + (score ?? 0) + Double(name?.utf8.count ?? 0)
        }
        return total
    }
}

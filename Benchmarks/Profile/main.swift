import CRDTSQLite  // re-exports the sqlite3 C API, for the raw baseline
// A loop over one cache operation for `perf record` (the benchmark harness runs its
// benchmarks in a child process, which profilers follow poorly):
//   swift build -c release --product CacheProfile && perf record -g .build/release/CacheProfile read|write
import Foundation
import SelfDB
import SelfDBCache
import SelfDBStore

let rows = (0..<1_000).map { index in
    CachedRow(id: UUID(), title: "row \(index)", body: "some text for row \(index)", rank: index, done: index.isMultiple(of: 2), createdAt: Date(), userId: UUID())
}
let path = FileManager.default.temporaryDirectory.appendingPathComponent("selfdb-cache-prof-\(UUID().uuidString).sqlite").path
let cache = try SelfDBCache(selfdb: SelfDB(baseUrl: "http://127.0.0.1:9", apiKey: "unused"), path: path)
let mode = CommandLine.arguments.dropFirst().first ?? "read"
try cache.savePage(rows, into: "bench")

/// The best of `PROFILE_ITERATIONS` (default 200) calls of the operation; a few are enough
/// under callgrind, which counts instructions.
let iterations = ProcessInfo.processInfo.environment["PROFILE_ITERATIONS"].flatMap { Int($0) } ?? 200
func measure() throws -> Double {
    var best = Double.infinity
    for _ in 0..<iterations {
        let start = DispatchTime.now().uptimeNanoseconds
        switch mode {
        case "read": _ = try cache.items(CachedRow.self, view: "bench")
        case "store-each", "store-row", "raw": try StoreRead.run(mode)
        case "store-insert": try StoreRead.insert()
        case "raw-insert": StoreRead.rawInsert()
        case "crdt-insert": try StoreRead.crdtInsert()
        default: try cache.savePage(rows, into: "bench")
        }
        best = min(best, Double(DispatchTime.now().uptimeNanoseconds - start) / 1e6)
    }
    return best
}

print(mode, "main thread: best", try measure(), "ms")
// The benchmark harness runs on a Dispatch worker; glibc gives other threads other arenas.
let done = DispatchSemaphore(value: 0)
DispatchQueue.global().async {
    print(mode, "worker thread: best", (try? measure()) ?? -1, "ms")
    done.signal()
}
done.wait()

/// Reading 100,000 rows of `t (id, name, score)` through SelfDBStore, as the store benchmarks do.
enum StoreRead {
    nonisolated(unsafe) static let db: SQLite = {
        do {
            let db = try SQLite()
            try db.executeScript("CREATE TABLE t (id INTEGER PRIMARY KEY, name TEXT, score REAL)")
            let insert = try db.prepare("INSERT INTO t (id, name, score) VALUES (?, ?, ?)")
            try db.transaction { for id in 0..<100_000 { try insert.execute(id, "name \(id)", Double(id) / 3) } }
            return db
        } catch {
            fatalError("\(error)")
        }
    }()

    /// The same read in raw sqlite3 on a connection opened with the store's flags.
    nonisolated(unsafe) static let rawHandle: OpaquePointer? = {
        var handle: OpaquePointer?
        sqlite3_open_v2(":memory:", &handle, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX, nil)
        sqlite3_exec(handle, "CREATE TABLE t (id INTEGER PRIMARY KEY, name TEXT, score REAL)", nil, nil, nil)
        sqlite3_exec(handle, "BEGIN", nil, nil, nil)
        var insert: OpaquePointer?
        sqlite3_prepare_v2(handle, "INSERT INTO t (id, name, score) VALUES (?, ?, ?)", -1, &insert, nil)
        for id in 0..<100_000 {
            sqlite3_bind_int64(insert, 1, Int64(id))
            sqlite3_bind_text(insert, 2, "name \(id)", -1, unsafeBitCast(-1, to: sqlite3_destructor_type.self))
            sqlite3_bind_double(insert, 3, Double(id) / 3)
            sqlite3_step(insert)
            sqlite3_reset(insert)
        }
        sqlite3_finalize(insert)
        sqlite3_exec(handle, "COMMIT", nil, nil, nil)
        return handle
    }()

    static func raw() -> Double {
        var statement: OpaquePointer?
        sqlite3_prepare_v2(rawHandle, "SELECT id, name, score FROM t", -1, &statement, nil)
        defer { sqlite3_finalize(statement) }
        var total = 0.0
        while sqlite3_step(statement) == SQLITE_ROW {
            let id = sqlite3_column_int64(statement, 0)
            let name = sqlite3_column_text(statement, 1).map { String(cString: $0) } ?? ""
            total += Double(id) + sqlite3_column_double(statement, 2) + Double(name.utf8.count)
        }
        return total
    }

    /// 100,000 inserts in one transaction into a fresh in-memory table.
    static func insert() throws {
        let db = try SQLite()
        try db.executeScript("CREATE TABLE t (id INTEGER PRIMARY KEY, name TEXT, score REAL)")
        let insert = try db.prepare("INSERT INTO t (id, name, score) VALUES (?, ?, ?)")
        try db.transaction { for id in 0..<100_000 { try insert.execute(id, "name \(id)", Double(id) / 3) } }
    }

    /// 10,000 inserts into a CRDT-tracked table in one transaction, as the CRDT benchmark does.
    static func crdtInsert() throws {
        let db = try CRDTSQLite<Int64>(path: ":memory:", nodeId: 1)
        try db.execute("CREATE TABLE t (id INTEGER PRIMARY KEY, name TEXT, score REAL)")
        try db.enableCRDT(for: "t")
        let insert = try db.connection.prepare("INSERT INTO t (id, name, score) VALUES (?, ?, ?)")
        try db.connection.transaction { for id in 0..<10_000 { try insert.execute(id, "name \(id)", Double(id)) } }
    }

    /// The same inserts in raw sqlite3, on a connection opened with the store's flags.
    static func rawInsert() {
        var handle: OpaquePointer?
        sqlite3_open_v2(":memory:", &handle, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX, nil)
        defer { sqlite3_close_v2(handle) }
        sqlite3_exec(handle, "CREATE TABLE t (id INTEGER PRIMARY KEY, name TEXT, score REAL)", nil, nil, nil)
        sqlite3_exec(handle, "BEGIN", nil, nil, nil)
        var insert: OpaquePointer?
        sqlite3_prepare_v2(handle, "INSERT INTO t (id, name, score) VALUES (?, ?, ?)", -1, &insert, nil)
        for id in 0..<100_000 {
            sqlite3_reset(insert)
            sqlite3_bind_int64(insert, 1, Int64(id))
            sqlite3_bind_text(insert, 2, "name \(id)", -1, unsafeBitCast(-1, to: sqlite3_destructor_type.self))
            sqlite3_bind_double(insert, 3, Double(id) / 3)
            sqlite3_step(insert)
        }
        sqlite3_finalize(insert)
        sqlite3_exec(handle, "COMMIT", nil, nil, nil)
    }

    static func run(_ mode: String) throws {
        var total = 0.0
        let query = try db.execute("SELECT id, name, score FROM t")
        if mode == "raw" {
            total = StoreRead.raw()
        } else if mode == "store-each" {
            try query.forEachRow { row in
                total += Double(row.int64(0) ?? 0) + (row.double(2) ?? 0) + Double(row.string(1)?.utf8.count ?? 0)
            }
        } else {
            while let row = try query.nextRow() {
                let id: Int64? = row[0]
                let name: String? = row[1]
                let score: Double? = row[2]
                total += Double(id ?? 0) + (score ?? 0) + Double(name?.utf8.count ?? 0)
            }
        }
        if total < 0 { print(total) }
    }
}

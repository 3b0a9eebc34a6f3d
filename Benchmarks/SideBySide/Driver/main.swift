// Side-by-side benchmark driver: one measure per invocation, one JSON line on stdout.
//
// Written against only the API that this package's `Synchro` and the Synchro 0.3.0 Swift
// client have in common (SynchroConfig(dbPath:serverURL:authProvider:clientID:appVersion:
// syncInterval:pushDebounce:pullPageSize:pushBatchSize:), start(), syncNow(), execute,
// queryOne, writeTransaction, pendingChangeCount(), close()), so the same file builds against
// either. Benchmarks/Scripts/side-by-side.py runs it; see there for the measures' order.
//
//   SynchroSideBySideDriver --server URL --token JWT --db PATH --client-id ID --measure NAME
//       [--rows N] [--calls N] [--expect N] [--order untracked-first|tracked-first]
//
// Measures:
//   e2e           device A (fresh `PATH`) starts, writes `rows` tasks in one transaction,
//                 pushes with syncNow(); device B (fresh `PATH.b`) starts and syncs until it
//                 holds them; then each closes. Leaves `rows` tasks on the server for the user.
//   tracked-write `rows` INSERTs into the synced `tasks` vs into a plain local table, in
//                 one transaction each, in the `--order` given (untracked first by default).
//   noop          fresh `PATH` syncs fully (expects `expect` tasks), then `calls` syncNow()
//                 with nothing to do, each timed (wall and process CPU); then `calls` times:
//                 one task updated in a transaction and syncNow() (an edit pushed), timed.
//                 Leaves `PATH`.
//   warm          reopens `PATH` (left by noop): init + start() (which runs the first cycle),
//                 then close() after an idle pause.
//
// Between phases (outside every timed region) the driver GETs `/__bench/<label>` on the
// server: the emulator logs it like any request, so the runner can count the requests of
// each phase in the emulator's log. Failures exit non-zero with a message on stderr.

import Foundation
import GRDB
import Synchro

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

// MARK: - Arguments

struct Options {
    var server: URL
    var token: String
    var db: String
    var clientID: String
    var measure: String
    var rows = 10_000
    var calls = 50
    var expect = 10_000
    /// tracked-write: which of the two writes goes first.
    var trackedFirst = false
}

func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data("driver: \(message)\n".utf8))
    exit(1)
}

func parseOptions() -> Options {
    var values: [String: String] = [:]
    var arguments = CommandLine.arguments.dropFirst()
    while let name = arguments.popFirst() {
        guard name.hasPrefix("--"), let value = arguments.popFirst() else { fail("bad argument \(name)") }
        values[String(name.dropFirst(2))] = value
    }
    func required(_ key: String) -> String {
        guard let value = values[key] else { fail("missing --\(key)") }
        return value
    }
    func integer(_ key: String, _ fallback: Int) -> Int {
        guard let text = values[key] else { return fallback }
        guard let value = Int(text), value > 0 else { fail("--\(key) must be a positive integer") }
        return value
    }
    guard let server = URL(string: required("server")) else { fail("bad --server") }
    return Options(
        server: server,
        token: required("token"),
        db: required("db"),
        clientID: required("client-id"),
        measure: required("measure"),
        rows: integer("rows", 10_000),
        calls: integer("calls", 50),
        expect: integer("expect", 10_000),
        trackedFirst: values["order"] == "tracked-first"
    )
}

// MARK: - Clocks

/// Seconds of user + system CPU this process has used.
func cpuSeconds() -> Double {
    var usage = rusage()
    #if canImport(Glibc)
    getrusage(__rusage_who_t(RUSAGE_SELF.rawValue), &usage)
    #else
    getrusage(RUSAGE_SELF, &usage)
    #endif
    func seconds(_ time: timeval) -> Double { Double(time.tv_sec) + Double(time.tv_usec) / 1e6 }
    return seconds(usage.ru_utime) + seconds(usage.ru_stime)
}

func wallSeconds() -> Double {
    var time = timespec()
    clock_gettime(CLOCK_MONOTONIC, &time)
    return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
}

struct Sample {
    var wall: Double
    var cpu: Double
}

func measure<T>(_ body: () async throws -> T) async rethrows -> (T, Sample) {
    let cpu = cpuSeconds()
    let wall = wallSeconds()
    let result = try await body()
    return (result, Sample(wall: wallSeconds() - wall, cpu: cpuSeconds() - cpu))
}

func median(_ values: [Double]) -> Double {
    let sorted = values.sorted()
    guard !sorted.isEmpty else { return .nan }
    let middle = sorted.count / 2
    return sorted.count % 2 == 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2
}

// MARK: - Phase markers

/// A session of its own, so the markers never warm the connections a client uses.
let markerSession = URLSession(configuration: .ephemeral)

/// Tells the server's request log that the phase `label` just ended (see the header).
func mark(_ label: String, server: URL) async {
    try? await Task.sleep(nanoseconds: 50_000_000)  // let the last request's log line land first
    var request = URLRequest(url: server.appendingPathComponent("__bench").appendingPathComponent(label))
    request.httpMethod = "GET"
    _ = try? await markerSession.data(for: request)
}

// MARK: - Clients

let options = parseOptions()
let userID: String = {
    let parts = options.token.split(separator: ".")
    guard parts.count == 3 else { fail("--token is not a JWT") }
    var payload = String(parts[1]).replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
    while payload.count % 4 != 0 { payload += "=" }
    guard let data = Data(base64Encoded: payload),
        let claims = try? JSONSerialization.jsonObject(with: data) as? [String: Any],
        let subject = claims["sub"] as? String
    else { fail("--token has no sub") }
    return subject.lowercased()
}()

func makeClient(path: String, clientID: String) throws -> SynchroClient {
    let token = options.token
    return try SynchroClient(
        config: SynchroConfig(
            dbPath: path,
            serverURL: options.server,
            authProvider: { token },
            clientID: clientID,
            appVersion: "1.0.0",
            // No timer and no debounced push inside a measurement: syncNow() does the work.
            syncInterval: 3600,
            pushDebounce: 3600,
            pullPageSize: 100,
            pushBatchSize: 100
        )
    )
}

func count(_ client: SynchroClient, _ sql: String) throws -> Int64 {
    guard let row = try client.queryOne(sql) else { fail("no row for \(sql)") }
    let value: Int64? = row["n"]
    return value ?? -1
}

func requireCount(_ client: SynchroClient, _ sql: String, _ expected: Int, _ what: String) throws {
    let actual = try count(client, sql)
    guard actual == Int64(expected) else { fail("\(what): expected \(expected), found \(actual)") }
}

let stamp = "2026-11-29T00:00:00.000Z"

/// Now, as the clients write timestamps (an edit is newer than what the server holds).
func isoNow() -> String {
    let formatter = ISO8601DateFormatter()
    formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
    return formatter.string(from: Date())
}

/// `rows` tasks of this user, in one transaction, one prepared INSERT.
func insertTasks(_ client: SynchroClient, table: String, rows: Int, label: String) throws {
    try client.writeTransaction { db in
        let statement = try db.makeStatement(
            sql: "INSERT INTO \(table) (id, user_id, title, done, priority, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?)"
        )
        for index in 0..<rows {
            try statement.execute(arguments: [UUID().uuidString.lowercased(), userID, "\(label) \(index)", index % 2, index, stamp, stamp])
        }
    }
}

let plainTable = """
    CREATE TABLE local_tasks (id TEXT PRIMARY KEY NOT NULL, user_id TEXT NOT NULL, title TEXT NOT NULL,
    done INTEGER NOT NULL DEFAULT 0, priority INTEGER DEFAULT 0, notes TEXT, created_at TEXT, updated_at TEXT NOT NULL, deleted_at TEXT)
    """

/// The size of the database's write-ahead log now (what a close may fold back).
func walBytes(_ path: String) -> Int {
    ((try? FileManager.default.attributesOfItem(atPath: path + "-wal"))?[.size] as? NSNumber)?.intValue ?? 0
}

func requireFresh(_ path: String) {
    for suffix in ["", "-wal", "-shm"] where FileManager.default.fileExists(atPath: path + suffix) {
        fail("\(path + suffix) already exists; give a fresh database path")
    }
}

// MARK: - Measures

func endToEnd() async throws -> [String: Any] {
    let pathA = options.db
    let pathB = options.db + ".b"
    requireFresh(pathA)
    requireFresh(pathB)
    let a = try makeClient(path: pathA, clientID: options.clientID + "-a")
    try await a.start()
    await mark("setup", server: options.server)

    let (_, write) = try await measure { try insertTasks(a, table: "tasks", rows: options.rows, label: "e2e") }
    await mark("write", server: options.server)
    guard try a.pendingChangeCount() > 0 else { fail("device A: the write left no pending change") }

    let (_, push) = try await measure { try await a.syncNow() }
    await mark("push", server: options.server)
    guard try a.pendingChangeCount() == 0 else { fail("device A: \(try a.pendingChangeCount()) changes still pending after syncNow()") }

    let b = try makeClient(path: pathB, clientID: options.clientID + "-b")
    let (_, pull) = try await measure {
        try await b.start()
        try await b.syncNow()
    }
    await mark("pull", server: options.server)
    try requireCount(b, "SELECT COUNT(*) AS n FROM tasks WHERE user_id = '\(userID)'", options.rows, "device B's tasks after its sync")
    try requireCount(b, "SELECT COUNT(*) AS n FROM tasks", options.rows, "device B's tasks (all users)")
    try requireCount(a, "SELECT COUNT(*) AS n FROM tasks", options.rows, "device A's tasks")

    let walB = walBytes(pathB)
    let walA = walBytes(pathA)
    let (_, closePulled) = try await measure { try b.close() }
    let (_, closePushed) = try await measure { try a.close() }
    await mark("close", server: options.server)
    return [
        "write_s": write.wall, "push_s": push.wall, "pull_s": pull.wall, "total_s": write.wall + push.wall + pull.wall,
        "write_cpu_s": write.cpu, "push_cpu_s": push.cpu, "pull_cpu_s": pull.cpu,
        "close_after_pull_s": closePulled.wall, "close_after_push_s": closePushed.wall,
        "wal_bytes_before_close_b": walB, "wal_bytes_before_close_a": walA,
    ]
}

func trackedWrite() async throws -> [String: Any] {
    requireFresh(options.db)
    let client = try makeClient(path: options.db, clientID: options.clientID)
    try await client.start()
    _ = try client.execute(plainTable)
    _ = try client.execute(plainTable.replacingOccurrences(of: "local_tasks", with: "warmup_tasks"))
    try insertTasks(client, table: "warmup_tasks", rows: 1_000, label: "warm-up")
    let pulled = Int(try count(client, "SELECT COUNT(*) AS n FROM tasks"))  // 0 for a user of its own
    await mark("setup", server: options.server)

    func write(tracked: Bool) async throws -> Sample {
        try await measure { try insertTasks(client, table: tracked ? "tasks" : "local_tasks", rows: options.rows, label: "write") }.1
    }
    let first = try await write(tracked: options.trackedFirst)
    let second = try await write(tracked: !options.trackedFirst)
    let (tracked, untracked) = options.trackedFirst ? (first, second) : (second, first)
    await mark("writes", server: options.server)
    try requireCount(client, "SELECT COUNT(*) AS n FROM local_tasks", options.rows, "local rows")
    try requireCount(client, "SELECT COUNT(*) AS n FROM tasks", pulled + options.rows, "tracked rows")
    let pending = try client.pendingChangeCount()
    guard pending == options.rows else { fail("tracked write: \(pending) pending changes for \(options.rows) rows") }
    try client.close()
    return [
        "tracked_s": tracked.wall, "untracked_s": untracked.wall, "tracked_over_untracked": tracked.wall / untracked.wall,
        "tracked_cpu_s": tracked.cpu, "untracked_cpu_s": untracked.cpu, "pulled_before": pulled,
    ]
}

func noop() async throws -> [String: Any] {
    requireFresh(options.db)
    let client = try makeClient(path: options.db, clientID: options.clientID)
    try await client.start()
    try await client.syncNow()
    try requireCount(client, "SELECT COUNT(*) AS n FROM tasks", options.expect, "tasks after the full sync")
    await mark("setup", server: options.server)

    var walls: [Double] = []
    var cpus: [Double] = []
    for _ in 0..<options.calls {
        let (_, sample) = try await measure { try await client.syncNow() }
        walls.append(sample.wall)
        cpus.append(sample.cpu)
    }
    await mark("noop", server: options.server)
    try requireCount(client, "SELECT COUNT(*) AS n FROM tasks", options.expect, "tasks after the no-op syncs")
    guard try client.pendingChangeCount() == 0 else { fail("pending changes after the no-op syncs") }

    // What an app pays per edit: one row changed, then a sync that pushes it (and pulls).
    guard let row = try client.queryOne("SELECT id FROM tasks ORDER BY id LIMIT 1"), let id: String = row["id"] else {
        fail("no task to edit")
    }
    var editWalls: [Double] = []
    var editCPUs: [Double] = []
    for call in 0..<options.calls {
        let (_, sample) = try await measure {
            try client.writeTransaction { db in
                try db.execute(sql: "UPDATE tasks SET title = ?, updated_at = ? WHERE id = ?", arguments: ["edit \(call)", isoNow(), id])
            }
            try await client.syncNow()
        }
        editWalls.append(sample.wall)
        editCPUs.append(sample.cpu)
    }
    await mark("edit", server: options.server)
    guard try client.pendingChangeCount() == 0 else { fail("pending changes after the edits") }
    try client.close()
    return [
        "noop_wall_s": median(walls), "noop_cpu_s": median(cpus), "calls": options.calls,
        "noop_wall_min_s": walls.min() ?? .nan, "noop_wall_max_s": walls.max() ?? .nan,
        "edit_wall_s": median(editWalls), "edit_cpu_s": median(editCPUs),
    ]
}

func warm() async throws -> [String: Any] {
    guard FileManager.default.fileExists(atPath: options.db) else { fail("\(options.db) does not exist: run noop first") }
    let (client, opened) = try await measure { try makeClient(path: options.db, clientID: options.clientID) }
    let (_, started) = try await measure { try await client.start() }
    await mark("warm", server: options.server)
    try requireCount(client, "SELECT COUNT(*) AS n FROM tasks", options.expect, "tasks after the warm start")
    guard try client.pendingChangeCount() == 0 else { fail("pending changes after the warm start") }
    try await Task.sleep(nanoseconds: 500_000_000)
    let wal = walBytes(options.db)
    let (_, closed) = try await measure { try client.close() }
    await mark("close", server: options.server)
    return [
        "warm_wall_s": opened.wall + started.wall, "warm_cpu_s": opened.cpu + started.cpu,
        "init_wall_s": opened.wall, "start_wall_s": started.wall, "close_idle_s": closed.wall,
        "wal_bytes_before_close": wal,
    ]
}

// MARK: - Main

do {
    let result: [String: Any]
    switch options.measure {
    case "e2e": result = try await endToEnd()
    case "tracked-write": result = try await trackedWrite()
    case "noop": result = try await noop()
    case "warm": result = try await warm()
    default: fail("unknown --measure \(options.measure)")
    }
    var line = result
    line["measure"] = options.measure
    line["rows"] = options.rows
    let data = try JSONSerialization.data(withJSONObject: line, options: [.sortedKeys])
    print(String(decoding: data, as: UTF8.self))
} catch {
    fail("\(options.measure) failed: \(error)")
}

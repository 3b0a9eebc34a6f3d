// Synchro's measured paths in one process, for `perf record` and callgrind (the benchmark
// harness runs its benchmarks in a child process, which profilers follow poorly), and for
// alternating builds run by run on a machine whose speed drifts:
//   swift build -c release --product SynchroProfile
//   .build/release/SynchroProfile page|e2e|e2e1
// - page: applies a protocol-2 pull page of 10,000 changes on a fresh device, checksums
//   verified, PROFILE_ITERATIONS times (default 20); prints each time.
// - e2e, e2e1: 10,000 rows written on device A until device B has them, through the emulator
//   on loopback, protocol 2 or 1; prints the phases.
import Foundation
import GRDB
import SelfDBEmulator
import SelfDBRuntime
@_spi(Testing) import Synchro

let rows = 10_000
let mode = CommandLine.arguments.dropFirst().first ?? "page"
let iterations = ProcessInfo.processInfo.environment["PROFILE_ITERATIONS"].flatMap { Int($0) } ?? 20

let user = "8a5c1f3e-2b4d-4e6f-9a7b-0c1d2e3f4a5b"
let scope = "user:\(user)"
let table = SyncTable(
    tableName: "tasks",
    pushPolicy: .ownerOnly,
    dependencies: [],
    updatedAtColumn: "updated_at",
    deletedAtColumn: "deleted_at",
    primaryKey: ["id"],
    columns: [
        ("id", LogicalType.string), ("user_id", .string), ("title", .string), ("done", .boolean), ("priority", .int),
        ("notes", .string), ("created_at", .datetime), ("updated_at", .datetime), ("deleted_at", .datetime),
    ].map { SyncColumn(name: $0.0, dbType: "text", logicalType: $0.1, nullable: $0.0 != "id", isPrimaryKey: $0.0 == "id") }
)

func temporaryDirectory() throws -> URL {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("synchro-profile-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    return directory
}

/// The benchmark's page: `rows` upserts into ``scope`` with made-up row checksums.
func pullPage() -> ScopedPullResponse {
    var checksum: Int32 = 0
    let changes = (0..<rows).map { index in
        let id = UUID().uuidString.lowercased()
        let rowChecksum = Int32(truncatingIfNeeded: index &* 2_654_435_761)
        checksum ^= rowChecksum
        let row: [String: JSONValue] = [
            "id": .string(id), "user_id": .string(user), "title": .string("task \(index)"), "done": .bool(index % 2 == 0),
            "priority": .integer(Int64(index)), "notes": .null, "created_at": .string("2026-11-24T10:00:00.000Z"),
            "updated_at": .string("2026-11-24T10:00:00.123Z"), "deleted_at": .null,
        ]
        return ChangeRecord(
            scope: scope,
            table: "tasks",
            op: .upsert,
            pk: ["id": id],
            row: row,
            rowChecksum: Int64(rowChecksum),
            serverVersion: "2026-11-24T10:00:00.123Z"
        )
    }
    return ScopedPullResponse(
        changes: changes,
        scopeSetVersion: 1,
        scopeCursors: [scope: "profile-cursor"],
        scopeUpdates: ScopeDelta(add: [], remove: []),
        rebuild: [],
        hasMore: false,
        checksums: [scope: String(checksum)]
    )
}

func applyPages() throws {
    let clock = ContinuousClock()
    for _ in 0..<iterations {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let client = try SynchroClient(
            config: SynchroConfig(
                dbPath: directory.appendingPathComponent("device.sqlite").path,
                serverURL: URL(fileURLWithPath: "/"),
                authProvider: { "" },
                clientID: "profile",
                appVersion: "1.0.0"
            )
        )
        try client.installSchema(version: 1, hash: "profile", tables: [table])
        let page = pullPage()
        let start = clock.now
        let mismatched = try client.applyPullPage(page, adding: [scope])
        let elapsed = clock.now - start
        precondition(mismatched.isEmpty, "the page's checksum did not match the rows applied")
        print("page \(elapsed)")
        try client.close()
    }
}

func endToEnd(_ syncProtocol: SyncProtocol) async throws {
    let spec = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Spec/Examples/tasks-sync.yaml")
    let directory = try temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: directory) }
    let emulator = try await SelfDBEmulator.start(
        .init(
            dataDirectory: directory.appendingPathComponent("server"),
            apiKey: "profile",
            passwordHashIterations: 1_000,
            syncSpecs: [spec],
            syncProtocol: syncProtocol
        )
    )
    let owner = UUID().uuidString.lowercased()
    let token = emulator.syncAccessToken(forUser: owner)
    func device(_ name: String) throws -> SynchroClient {
        try SynchroClient(
            config: SynchroConfig(
                dbPath: directory.appendingPathComponent("\(name).sqlite").path,
                serverURL: emulator.baseURL,
                authProvider: { token },
                clientID: name,
                appVersion: "1.0.0",
                syncInterval: 3600,
                pushDebounce: 3600,
                pullPageSize: 1000,
                pushBatchSize: 1000
            )
        )
    }
    let a = try device("a")
    let b = try device("b")
    try await a.start()
    try await b.start()
    let clock = ContinuousClock()
    let start = clock.now
    try a.writeTransaction { db in
        let statement = try db.makeStatement(sql: "INSERT INTO tasks (id, title, user_id, done, priority) VALUES (?, ?, ?, ?, ?)")
        for index in 0..<rows { try statement.execute(arguments: [UUID().uuidString, "task \(index)", owner, index % 2, index]) }
    }
    let written = clock.now
    try await a.syncNow()
    let pushed = clock.now
    try await b.syncNow()
    let end = clock.now
    print("total \(end - start) write \(written - start) a.sync \(pushed - written) b.sync \(end - pushed)")
    let arrived = try b.queryOne("SELECT COUNT(*) AS n FROM tasks")?["n"] as Int64?
    precondition(arrived == Int64(rows), "device B has \(arrived ?? 0) of \(rows) rows")
    try a.close()
    try b.close()
    await emulator.stop()
}

switch mode {
case "e2e": try await endToEnd(.two)
case "e2e1": try await endToEnd(.one)
default: try applyPages()
}

import Benchmark
import Foundation
import GRDB
import SelfDBEmulator
@_spi(Testing) import Synchro

/// The Synchro client's local data paths and its end-to-end sync:
/// - tracked inserts (triggers recording pending changes) against the same inserts into an
///   untracked GRDB table — target ≤ 1.5×;
/// - applying pulled records — target ≥ 50,000 rows/s;
/// - 10,000 rows written on device A until device B has them, through the emulator on
///   loopback.
let benchmarks: @Sendable () -> Void = {
    Benchmark.defaultConfiguration = .init(metrics: [.wallClock, .cpuTotal], maxDuration: .seconds(10), maxIterations: 20)
    let rows = 10_000

    Benchmark("Synchro: 10,000 tracked inserts in one transaction") { benchmark in
        let device = try LocalDevice()
        benchmark.startMeasurement()
        try device.client.writeTransaction { db in try TaskRows.insert(rows, in: db) }
        benchmark.stopMeasurement()
        device.close()
    }

    Benchmark("GRDB: 10,000 untracked inserts into the same table") { benchmark in
        let directory = try LocalDevice.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let pool = try DatabasePool(path: directory.appendingPathComponent("plain.sqlite").path)
        try pool.write { db in try db.execute(sql: TaskRows.plainTable) }
        benchmark.startMeasurement()
        try pool.write { db in try TaskRows.insert(rows, in: db) }
        benchmark.stopMeasurement()
        try pool.close()
    }

    Benchmark("GRDB: 10,000 inserts into a table with Synchro's triggers") { benchmark in
        let device = try LocalDevice()
        let path = device.client.config.dbPath
        try device.client.close()
        let pool = try DatabasePool(path: path)
        benchmark.startMeasurement()
        try pool.write { db in try TaskRows.insert(rows, in: db) }
        benchmark.stopMeasurement()
        try pool.close()
        device.close()
    }

    Benchmark("Synchro: apply 10,000 pulled records") { benchmark in
        let device = try LocalDevice()
        let records = TaskRows.records(rows)
        benchmark.startMeasurement()
        try device.client.applyPulledRecords(records)
        benchmark.stopMeasurement()
        device.close()
    }

    Benchmark("Synchro: apply a protocol-2 pull page of 10,000 changes, checksums verified") { benchmark in
        let device = try LocalDevice()
        let page = TaskRows.pullPage(rows)
        benchmark.startMeasurement()
        let mismatched = try device.client.applyPullPage(page, adding: [TaskRows.scope])
        benchmark.stopMeasurement()
        precondition(mismatched.isEmpty, "the page's checksum did not match the rows applied")
        device.close()
    }

    for syncProtocol in SyncProtocol.allCases {
        Benchmark(
            "Synchro: 10,000 rows from device A to device B over loopback, protocol \(syncProtocol.rawValue)",
            configuration: .init(maxDuration: .seconds(30), maxIterations: 5)
        ) { benchmark in
            try await EndToEnd.run(rows: rows, syncProtocol: syncProtocol, benchmark: benchmark)
        }
    }
}

/// The tasks table of `Spec/Examples/tasks-sync.yaml`, as its Synchro schema lists it.
enum TaskRows {
    static let columns: [(String, LogicalType)] = [
        ("id", .string), ("user_id", .string), ("title", .string), ("done", .boolean), ("priority", .int),
        ("notes", .string), ("created_at", .datetime), ("updated_at", .datetime), ("deleted_at", .datetime),
    ]

    static let table = SyncTable(
        tableName: "tasks",
        pushPolicy: .ownerOnly,
        dependencies: [],
        updatedAtColumn: "updated_at",
        deletedAtColumn: "deleted_at",
        primaryKey: ["id"],
        columns: columns.map { SyncColumn(name: $0.0, dbType: "text", logicalType: $0.1, nullable: $0.0 != "id", isPrimaryKey: $0.0 == "id") }
    )

    /// The same table without tracking, as the client would create it.
    static let plainTable = """
        CREATE TABLE tasks ("id" TEXT COLLATE NOCASE, "user_id" TEXT, "title" TEXT, "done" INTEGER, "priority" INTEGER,
        "notes" TEXT, "created_at" TEXT, "updated_at" TEXT, "deleted_at" TEXT, PRIMARY KEY ("id"))
        """

    static let user = "8a5c1f3e-2b4d-4e6f-9a7b-0c1d2e3f4a5b"

    static func insert(_ count: Int, in db: Database) throws {
        let statement = try db.makeStatement(sql: "INSERT INTO tasks (id, title, user_id, done, priority) VALUES (?, ?, ?, ?, ?)")
        for index in 0..<count {
            try statement.execute(arguments: [UUID().uuidString, "task \(index)", user, index % 2, index])
        }
    }

    static let scope = "user:\(user)"

    /// A last pull page upserting `count` rows into ``scope``, with made-up row checksums and
    /// their XOR as the scope's checksum.
    static func pullPage(_ count: Int) -> ScopedPullResponse {
        var checksum: Int32 = 0
        let changes = records(count).enumerated().map { index, record in
            let rowChecksum = Int32(truncatingIfNeeded: index &* 2_654_435_761)
            checksum ^= rowChecksum
            return ChangeRecord(
                scope: scope,
                table: "tasks",
                op: .upsert,
                pk: ["id": record.id],
                row: record.data,
                rowChecksum: Int64(rowChecksum),
                serverVersion: record.updatedAt
            )
        }
        return ScopedPullResponse(
            changes: changes,
            scopeSetVersion: 1,
            scopeCursors: [scope: "bench-cursor"],
            scopeUpdates: ScopeDelta(add: [], remove: []),
            rebuild: [],
            hasMore: false,
            checksums: [scope: String(checksum)]
        )
    }

    static func records(_ count: Int) -> [SyncRecord] {
        (0..<count).map { index in
            let id = UUID().uuidString.lowercased()
            return SyncRecord(
                id: id,
                tableName: "tasks",
                data: [
                    "id": .string(id), "user_id": .string(user), "title": .string("task \(index)"), "done": .bool(index % 2 == 0),
                    "priority": .integer(Int64(index)), "notes": .null, "created_at": .string("2026-11-24T10:00:00.000Z"),
                    "updated_at": .string("2026-11-24T10:00:00.123Z"), "deleted_at": .null,
                ],
                updatedAt: "2026-11-24T10:00:00.123Z"
            )
        }
    }
}

/// A client on a fresh file with the tasks table installed, and no server.
struct LocalDevice {
    let client: SynchroClient
    let directory: URL

    init() throws {
        directory = try Self.temporaryDirectory()
        client = try SynchroClient(
            config: SynchroConfig(
                dbPath: directory.appendingPathComponent("device.sqlite").path,
                serverURL: URL(fileURLWithPath: "/"),
                authProvider: { "" },
                clientID: "bench",
                appVersion: "1.0.0"
            )
        )
        try client.installSchema(version: 1, hash: "bench", tables: [TaskRows.table])
    }

    static func temporaryDirectory() throws -> URL {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("synchro-bench-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        return directory
    }

    func close() {
        try? client.close()
        try? FileManager.default.removeItem(at: directory)
    }
}

/// Device A writes, pushes; device B pulls — both through an emulator on loopback.
enum EndToEnd {
    static let spec = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Spec/Examples/tasks-sync.yaml")

    static func run(rows: Int, syncProtocol: SyncProtocol, benchmark: Benchmark) async throws {
        let directory = try LocalDevice.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let emulator = try await SelfDBEmulator.start(
            .init(dataDirectory: directory.appendingPathComponent("server"), apiKey: "bench", passwordHashIterations: 1_000, syncSpecs: [spec], syncProtocol: syncProtocol)
        )
        let user = UUID().uuidString.lowercased()
        let token = emulator.syncAccessToken(forUser: user)
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
        benchmark.startMeasurement()
        try a.writeTransaction { db in
            let statement = try db.makeStatement(sql: "INSERT INTO tasks (id, title, user_id, done, priority) VALUES (?, ?, ?, ?, ?)")
            for index in 0..<rows {
                try statement.execute(arguments: [UUID().uuidString, "task \(index)", user, index % 2, index])
            }
        }
        let clock = ContinuousClock()
        let t0 = clock.now
        try await a.syncNow()
        let t1 = clock.now
        try await b.syncNow()
        benchmark.stopMeasurement()
        if ProcessInfo.processInfo.environment["SYNCHRO_BENCH_PHASES"] != nil {
            print("push \(t1 - t0), pull \(clock.now - t1)")
        }
        let arrived = try b.queryOne("SELECT COUNT(*) AS n FROM tasks")?["n"] as Int64?
        precondition(arrived == Int64(rows), "device B has \(arrived ?? 0) of \(rows) rows")
        try a.close()
        try b.close()
        await emulator.stop()
    }
}

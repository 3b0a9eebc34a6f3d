import Foundation
import GRDB
import SelfDBEmulator
import SelfDBRuntime
@_spi(Testing) import Synchro

// What the Synchro benchmarks and `SynchroProfile` share: the tasks table, its rows and pull
// page, a local device, and the end-to-end run.

/// The tasks table of `Spec/Examples/tasks-sync.yaml`, as its Synchro schema lists it.
public enum TaskRows {
    public static let columns: [(String, LogicalType)] = [
        ("id", .string), ("user_id", .string), ("title", .string), ("done", .boolean), ("priority", .int),
        ("notes", .string), ("created_at", .datetime), ("updated_at", .datetime), ("deleted_at", .datetime),
    ]

    public static let table = SyncTable(
        tableName: "tasks",
        pushPolicy: .ownerOnly,
        dependencies: [],
        updatedAtColumn: "updated_at",
        deletedAtColumn: "deleted_at",
        primaryKey: ["id"],
        columns: columns.map { SyncColumn(name: $0.0, dbType: "text", logicalType: $0.1, nullable: $0.0 != "id", isPrimaryKey: $0.0 == "id") }
    )

    /// The same table without tracking, as the client would create it.
    public static let plainTable = """
        CREATE TABLE tasks ("id" TEXT COLLATE NOCASE, "user_id" TEXT, "title" TEXT, "done" INTEGER, "priority" INTEGER,
        "notes" TEXT, "created_at" TEXT, "updated_at" TEXT, "deleted_at" TEXT, PRIMARY KEY ("id"))
        """

    public static let user = "8a5c1f3e-2b4d-4e6f-9a7b-0c1d2e3f4a5b"

    public static func insert(_ count: Int, in db: Database) throws {
        let statement = try db.makeStatement(sql: "INSERT INTO tasks (id, title, user_id, done, priority) VALUES (?, ?, ?, ?, ?)")
        for index in 0..<count {
            try statement.execute(arguments: [UUID().uuidString, "task \(index)", user, index % 2, index])
        }
    }

    public static let scope = "user:\(user)"

    /// A last pull page upserting `count` rows into ``scope``, with made-up row checksums and
    /// their XOR as the scope's checksum.
    public static func pullPage(_ count: Int) -> ScopedPullResponse {
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

    public static func records(_ count: Int) -> [SyncRecord] {
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
public struct LocalDevice {
    public let client: SynchroClient
    public let directory: URL

    public init() throws {
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

    public static func temporaryDirectory() throws -> URL {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("synchro-bench-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        return directory
    }

    public func close() {
        try? client.close()
        try? FileManager.default.removeItem(at: directory)
    }
}

/// Device A writes, pushes; device B pulls — both through an emulator on loopback.
public enum EndToEnd {
    /// How long each part took, device A's write to device B's last pulled row.
    public struct Phases: Sendable {
        public var write: Duration
        public var push: Duration
        public var pull: Duration
        public var total: Duration { write + push + pull }
    }

    static let spec = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Spec/Examples/tasks-sync.yaml")

    /// Writes `rows` on device A, syncs it, then syncs device B until it has them, on an
    /// emulator serving `syncProtocol`. `started` and `finished` are called right before the
    /// write and right after device B's sync: set-up and checks fall outside them.
    public static func run(rows: Int, syncProtocol: SyncProtocol, started: () -> Void = {}, finished: () -> Void = {}) async throws -> Phases {
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
        let clock = ContinuousClock()
        started()
        let start = clock.now
        try a.writeTransaction { db in
            let statement = try db.makeStatement(sql: "INSERT INTO tasks (id, title, user_id, done, priority) VALUES (?, ?, ?, ?, ?)")
            for index in 0..<rows {
                try statement.execute(arguments: [UUID().uuidString, "task \(index)", user, index % 2, index])
            }
        }
        let written = clock.now
        try await a.syncNow()
        let pushed = clock.now
        try await b.syncNow()
        let pulled = clock.now
        finished()
        let arrived = try b.queryOne("SELECT COUNT(*) AS n FROM tasks")?["n"] as Int64?
        precondition(arrived == Int64(rows), "device B has \(arrived ?? 0) of \(rows) rows")
        try a.close()
        try b.close()
        await emulator.stop()
        return Phases(write: written - start, push: pushed - written, pull: pulled - pushed)
    }
}

import Benchmark
import Foundation
import GRDB
import SelfDBEmulator
@_spi(Testing) import Synchro
import SynchroBenchmarkSupport

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
            let phases = try await EndToEnd.run(
                rows: rows,
                syncProtocol: syncProtocol,
                started: { benchmark.startMeasurement() },
                finished: { benchmark.stopMeasurement() }
            )
            if ProcessInfo.processInfo.environment["SYNCHRO_BENCH_PHASES"] != nil {
                print("push \(phases.push), pull \(phases.pull)")
            }
        }
    }
}

// Synchro's measured paths in one process, for `perf record` and callgrind (the benchmark
// harness runs its benchmarks in a child process, which profilers follow poorly), and for
// alternating builds run by run on a machine whose speed drifts:
//   swift build -c release --product SynchroProfile
//   .build/release/SynchroProfile page|e2e|e2e1
// - page: applies the benchmark's protocol-2 pull page of 10,000 changes on a fresh device,
//   checksums verified, PROFILE_ITERATIONS times (default 20); prints each time.
// - e2e, e2e1: the benchmark's 10,000 rows from device A to device B through the emulator on
//   loopback, protocol 2 or 1; prints the phases.
// Callgrind cannot read this build's debug information: run it on a copy made with `strip -g`.
import Foundation
@_spi(Testing) import Synchro
import SynchroBenchmarkSupport

let rows = 10_000
let mode = CommandLine.arguments.dropFirst().first ?? "page"
let iterations = ProcessInfo.processInfo.environment["PROFILE_ITERATIONS"].flatMap { Int($0) } ?? 20

func applyPages() throws {
    let clock = ContinuousClock()
    for _ in 0..<iterations {
        let device = try LocalDevice()
        defer { device.close() }
        let page = TaskRows.pullPage(rows)
        let start = clock.now
        let mismatched = try device.client.applyPullPage(page, adding: [TaskRows.scope])
        let elapsed = clock.now - start
        precondition(mismatched.isEmpty, "the page's checksum did not match the rows applied")
        print("page \(elapsed)")
    }
}

switch mode {
case "e2e", "e2e1":
    let phases = try await EndToEnd.run(rows: rows, syncProtocol: mode == "e2e" ? .two : .one)
    print("total \(phases.total) write \(phases.write) a.sync \(phases.push) b.sync \(phases.pull)")
default: try applyPages()
}

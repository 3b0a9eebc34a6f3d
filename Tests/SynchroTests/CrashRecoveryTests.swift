import Foundation
import GRDB
import SelfDBEmulator
import SelfDBTestSupport
import Synchro
import Testing

// The helper process needs `posix_spawn` (HelperProcess): macOS and Linux only.
#if os(macOS) || os(Linux)
/// A client process killed with SIGKILL at random moments of its cycles — mid-push,
/// mid-pull, between a commit and its push — and started again on the same database,
/// several times over: afterwards nothing it committed is lost, nothing is duplicated, and
/// its database, the server and a fresh device agree.
@Suite("Crash recovery", .serialized)
struct SynchroCrashRecoveryTests {
    @Test(arguments: SyncProtocol.allCases) func killedAtRandomMomentsOfItsCyclesItLosesNothing(_ syncProtocol: SyncProtocol) async throws {
        // A little latency widens the windows between a request and its answer.
        try await SyncWorld.run(configure: {
            $0.responseLatency = .milliseconds(3)
            $0.syncProtocol = syncProtocol
        }) { world in
            let helper = try #require(Self.helperURL, "synchro-crash-helper is not built next to the tests")
            let user = SyncWorld.newUser()
            let path = world.directory.appendingPathComponent("killed.sqlite").path
            let token = world.emulator.syncAccessToken(forUser: user, lifetime: 3600)
            var random = SplitMix64(seed: 7)
            var committed = -1
            for round in 0..<12 {
                let process = try HelperProcess(helper, arguments: [world.emulator.baseURL.absoluteString, token, path, "crash-device", user])
                let lines = LineReader(process.output)
                // Let it get going, then kill it wherever it is.
                let target = committed + Int.random(in: 2...6, using: &random)
                while let line = await lines.next(), !line.hasPrefix("FAILED") {
                    if let step = Int(line.dropFirst("COMMITTED ".count)) { committed = max(committed, step) }
                    if committed >= target { break }
                }
                try await Task.sleep(for: .microseconds(Int.random(in: 0...20_000, using: &random)))
                process.send(SIGKILL)
                #expect(process.waitUntilExit() == .signal(SIGKILL), "round \(round): the helper stopped by itself")
            }
            #expect(committed >= 16)

            // The same database, opened again: it finishes what the helper left.
            let recovered = try world.device("recovered", user: user) {
                $0.dbPath = path
                $0.clientID = "crash-device"
            }
            #expect(try recovered.readTransaction { db in try String.fetchOne(db, sql: "PRAGMA integrity_check") } == "ok")
            try await recovered.start()
            try await recovered.syncNow()
            #expect(try recovered.pendingChangeCount() == 0)

            let local = try recovered.live("tasks")
            for step in 0...committed {
                let id = String(format: "00000000-0000-4000-8000-%012d", step)
                let deleted = step <= committed - 2 && step % 5 == 0
                let edited = step < committed
                if deleted {
                    #expect(local[id] == nil, "task \(step) was deleted")
                    #expect(try world.emulator.syncedRow(table: "tasks", id: id)?.isDeleted == true, "the server deleted task \(step)")
                } else {
                    #expect(local[id] == (edited ? "task \(step) edited" : "task \(step)"), "task \(step) locally")
                    let server = try world.emulator.syncedRow(table: "tasks", id: id)
                    #expect(server?.isDeleted == false, "task \(step) on the server")
                    #expect(server?.values["title"] == local[id].map { .string($0) }, "task \(step) on the server")
                }
            }
            // Nothing more and nothing twice: one row per step, here, there and on a new device.
            // (A hard DELETE leaves no local row; the server keeps it soft-deleted.)
            #expect(try recovered.query("SELECT id FROM tasks").count == local.count)
            #expect(try world.emulator.syncedRowCount(table: "tasks", userID: user) == local.count)
            let fresh = try world.device("fresh", user: user)
            try await fresh.start()
            #expect(try fresh.live("tasks") == local)
        }
    }

    /// The helper executable, built next to the test bundle.
    static var helperURL: URL? { TestExecutables.url(named: "synchro-crash-helper") }
}

/// Reads a child's output line by line; blocking reads run on a GCD thread, never on the
/// cooperative pool they would starve.
final class LineReader: @unchecked Sendable {
    private let handle: FileHandle
    private var buffer = Data()

    init(_ handle: FileHandle) { self.handle = handle }

    /// The next line, or nil at the end of the output.
    func next() async -> String? {
        while true {
            if let newline = buffer.firstIndex(of: 0x0A) {
                let line = String(decoding: buffer[buffer.startIndex..<newline], as: UTF8.self)
                buffer.removeSubrange(buffer.startIndex...newline)
                return line
            }
            let chunk = await withCheckedContinuation { (continuation: CheckedContinuation<Data, Never>) in
                DispatchQueue.global().async { continuation.resume(returning: self.handle.availableData) }
            }
            if chunk.isEmpty { return nil }
            buffer.append(chunk)
        }
    }
}
#endif

import CRDTSQLite
import Foundation
import SelfDBTestSupport
import Testing

// The helper process needs `posix_spawn` (HelperProcess): macOS and Linux only.
#if os(macOS) || os(Linux)
extension CRDTSuite {
    @Suite("crash safety")
    struct CrashSafetyTests {
        @Test("a writer killed with SIGKILL mid-stream leaves every committed row with its metadata")
        func sigkillMidStream() async throws {
            let files = try TemporaryFiles()
            let path = files.path("crash.db")
            let writer = try #require(Self.writerURL, "crdt-crash-writer is not built next to the tests")
            let process = try HelperProcess(writer, arguments: [path])
            // Let it commit a good number of batches, then kill it without warning.
            // Blocking reads go to a GCD thread: on the cooperative pool (2 threads here) they would
            // starve every other async test while they wait.
            let committed = await withCheckedContinuation { (continuation: CheckedContinuation<Int, Never>) in
                DispatchQueue.global().async {
                    var text = ""
                    while true {
                        let data = process.output.availableData
                        if data.isEmpty { break }
                        text += String(decoding: data, as: UTF8.self)
                        if Self.lastBatch(text) >= 30 { break }
                    }
                    continuation.resume(returning: Self.lastBatch(text))
                }
            }
            process.send(SIGKILL)
            #expect(process.waitUntilExit() == .signal(SIGKILL))
            #expect(committed >= 30)

            let db = try CRDTSQLite<Int64>(path: path, nodeId: 7)
            #expect(try db.connection.execute("PRAGMA integrity_check").one()[0] == "ok")
            let rowCount: Int = try #require(try db.connection.execute("SELECT count(*) FROM events").one()[0])
            #expect(rowCount >= committed * 20)
            #expect(rowCount % 20 == 0, "only whole transactions are committed")
            // Every row has its record and its two cells; no metadata without a row.
            let withoutRecord: Int? = try db.connection.execute(
                "SELECT count(*) FROM events e WHERE NOT EXISTS (SELECT 1 FROM _crdt_records r WHERE r.tbl = 'events' AND r.pk = e.id AND r.cl % 2 = 1)"
            ).one()[0]
            let withoutCells: Int? = try db.connection.execute("SELECT count(*) FROM events e WHERE (SELECT count(*) FROM _crdt_columns c WHERE c.tbl = 'events' AND c.pk = e.id) != 2").one()[0]
            let orphans: Int? = try db.connection.execute("SELECT count(*) FROM _crdt_records r WHERE NOT EXISTS (SELECT 1 FROM events e WHERE e.id = r.pk)").one()[0]
            #expect(withoutRecord == 0 && withoutCells == 0 && orphans == 0)
            // And the feed hands all of it to a peer.
            let peer = try CRDTSQLite<Int64>(path: files.path("peer.db"), nodeId: 8)
            try peer.execute("CREATE TABLE events (id INTEGER PRIMARY KEY, label TEXT, n INTEGER)")
            try peer.enableCRDT(for: "events")
            _ = try peer.mergeChanges(try db.getChangesSince(0))
            #expect(try rows(peer, "events") == rows(db, "events"))
        }

        static func lastBatch(_ text: String) -> Int {
            text.split(separator: "\n").last { $0.hasPrefix("committed ") }.flatMap { Int($0.dropFirst("committed ".count)) } ?? 0
        }

        /// The writer executable, built next to the test bundle.
        static var writerURL: URL? { TestExecutables.url(named: "crdt-crash-writer") }
    }
}
#endif

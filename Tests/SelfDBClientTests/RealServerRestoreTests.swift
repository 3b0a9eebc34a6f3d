import Foundation
import SelfDB
import SelfDBRuntime
import Testing

/// `backups.restore(fileURL:)`, the archive streamed from disk as a one-part form, onto a real
/// SelfDB that nobody has signed in to yet: a restore needs a fresh install, which CI has no
/// way to give, so this runs by hand. Make the archive on a kit server, then wipe it:
///
///     (SQL as admin) create table restore_probe (note text); insert into restore_probe values ('restored');
///     POST /backups, then GET /backups/<name>/download > archive.tar.gz
///     ../shared/kits/real-selfdb: ./stop.sh && ./setup.sh --reset && ./start.sh
///     SELFDB_REAL_URL=http://127.0.0.1:8000 SELFDB_REAL_RESTORE_ARCHIVE=archive.tar.gz \
///         swift test --filter RealServerRestoreTests
@Suite(
    "a streamed restore onto a fresh real SelfDB",
    .enabled(if: ProcessInfo.processInfo.environment["SELFDB_REAL_URL"] != nil && ProcessInfo.processInfo.environment["SELFDB_REAL_RESTORE_ARCHIVE"] != nil)
)
struct RealServerRestoreTests {
    @Test func theArchiveStreamedFromAFileIsRestored() async throws {
        let environment = ProcessInfo.processInfo.environment
        let url = try #require(URL(string: environment["SELFDB_REAL_URL"] ?? ""))
        let archive = URL(fileURLWithPath: try #require(environment["SELFDB_REAL_RESTORE_ARCHIVE"]))
        let selfdb = SelfDB(baseURL: url, apiKey: environment["SELFDB_REAL_API_KEY"] ?? "test-api-key")
        let sent = Locked<TransferProgress?>(nil)
        let result = try await selfdb.backups.restore(fileURL: archive) { progress in sent.withLock { $0 = progress } }
        #expect(result.success)
        let size = try #require(try FileManager.default.attributesOfItem(atPath: archive.path)[.size] as? NSNumber).int64Value
        #expect((sent.current?.bytesDone ?? 0) > size, "the form's bytes: the archive's and its framing")

        // The archive's database is the server's now: its probe row is there.
        try await selfdb.auth.login(email: environment["SELFDB_REAL_EMAIL"] ?? "admin@example.com", password: environment["SELFDB_REAL_PASSWORD"] ?? "Admin123!")
        let rows = try await selfdb.sql.query(query: "select note from restore_probe")
        #expect(rows.data == [["note": "restored"]])
    }
}

import Foundation
import SelfDB
import SelfDBRuntime
import Testing

/// `backups.*` through the generated client: archives listed, served and deleted from the data
/// directory's `backups/` as SelfDB does from its own; making and restoring one answer the
/// real shapes with the emulator's documented reason.
@Suite("backups through the generated client")
struct BackupsClientTests {
    @Test func archivesInTheDataDirectoryAreListedServedAndDeleted() async throws {
        try await ClientFixture.run { fixture in
            let admin = try await fixture.admin()
            #expect(try await admin.backups.list().isEmpty)
            let folder = fixture.emulator.dataDirectory.appendingPathComponent("backups", isDirectory: true)
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            let archive = Data((0..<300).map { UInt8($0 % 251) })
            try archive.write(to: folder.appendingPathComponent("selfdb_backup_20250101_120000.tar.gz"))
            try Data([1]).write(to: folder.appendingPathComponent("selfdb_backup_20250301_000000.tar.gz"))
            try Data([2]).write(to: folder.appendingPathComponent("selfdb_backup_2025_bad.tar.gz"))
            try Data([3]).write(to: folder.appendingPathComponent("notes.txt"))

            let backups = try await admin.backups.list()
            #expect(backups.map(\.filename) == ["selfdb_backup_20250301_000000.tar.gz", "selfdb_backup_20250101_120000.tar.gz"])
            #expect(backups.last?.size == 300)
            #expect(backups.last?.createdAt == Date(timeIntervalSince1970: 1_735_732_800), "2025-01-01T12:00:00, sent without a zone")
            #expect(try await admin.backups.download("selfdb_backup_20250101_120000.tar.gz") == archive)
            await expectError("404 for a name SelfDB would not serve", { if case .notFound(let detail) = $0 { detail == "Backup file not found" } else { false } }) {
                _ = try await admin.backups.download("notes.txt")
            }
            // Streamed to a file, with its Content-Length (the emulator streams it from disk).
            let saved = folder.deletingLastPathComponent().appendingPathComponent("saved.tar.gz")
            #expect(try await admin.backups.download("selfdb_backup_20250101_120000.tar.gz", to: saved) == 300)
            #expect(try Data(contentsOf: saved) == archive)
            let missing = folder.deletingLastPathComponent().appendingPathComponent("missing.tar.gz")
            await expectError("404 to a file, and no file", { if case .notFound = $0 { true } else { false } }) {
                _ = try await admin.backups.download("notes.txt", to: missing)
            }
            #expect(!FileManager.default.fileExists(atPath: missing.path))
            let deleted = try await admin.backups.delete("selfdb_backup_20250301_000000.tar.gz")
            #expect(deleted.message == "Backup selfdb_backup_20250301_000000.tar.gz deleted successfully")
            #expect(try await admin.backups.list().count == 1)

            await expectError(
                "500: the emulator makes no SelfDB backup, and says so",
                { error in
                    if case .internalServerError(let detail) = error { detail.hasPrefix("Backup failed: the SelfDB emulator makes no SelfDB backups") } else { false }
                }
            ) {
                _ = try await admin.backups.create()
            }
            let (user, _) = try await fixture.newUser()
            await expectError("403 for a user", { if case .permissionDenied(let detail) = $0 { detail == "Admin access required" } else { false } }) {
                _ = try await user.backups.list()
            }
            await expectError("403 to delete", { if case .permissionDenied = $0 { true } else { false } }) {
                _ = try await user.backups.delete("selfdb_backup_20250101_120000.tar.gz")
            }
            #expect(FileManager.default.fileExists(atPath: folder.appendingPathComponent("selfdb_backup_20250101_120000.tar.gz").path))
        }
    }

    @Test func restoreOnlyOnAFreshInstall() async throws {
        try await ClientFixture.run { fixture in
            // Nobody has signed in: the upload is read, and refused for what the emulator cannot do.
            let anonymous = fixture.client()
            await expectError("400 for an empty archive", { if case .badRequest(let detail) = $0 { detail == "Uploaded file is empty" } else { false } }) {
                _ = try await anonymous.backups.restore(archive: Data())
            }
            await expectError(
                "400: the emulator restores no SelfDB backup",
                { error in
                    if case .badRequest(let detail) = error { detail.hasPrefix("Restore failed: the SelfDB emulator") } else { false }
                }
            ) {
                _ = try await anonymous.backups.restore(archive: Data([0x1F, 0x8B, 0x08]))
            }
            // The same answers for an archive streamed from a file as a one-part form.
            let files = fixture.emulator.dataDirectory
            let empty = files.appendingPathComponent("empty-\(UUID().uuidString).tar.gz")
            let archive = files.appendingPathComponent("archive-\(UUID().uuidString).tar.gz")
            defer { for file in [empty, archive] { try? FileManager.default.removeItem(at: file) } }
            try Data().write(to: empty)
            try Data([0x1F, 0x8B, 0x08]).write(to: archive)
            await expectError("400 for an empty archive file", { if case .badRequest(let detail) = $0 { detail == "Uploaded file is empty" } else { false } }) {
                _ = try await anonymous.backups.restore(fileURL: empty)
            }
            let sent = Locked<Int64>(0)
            await expectError("400 for an archive file", { if case .badRequest(let detail) = $0 { detail.hasPrefix("Restore failed: the SelfDB emulator") } else { false } }) {
                _ = try await anonymous.backups.restore(fileURL: archive) { progress in sent.withLock { $0 = progress.bytesDone } }
            }
            #expect(sent.current > 3, "the form's bytes: the file's and its framing")
            _ = try await fixture.admin()
            await expectError("403 for an archive file too", { if case .permissionDenied = $0 { true } else { false } }) {
                _ = try await anonymous.backups.restore(fileURL: archive)
            }
            await expectError(
                "403 once anyone has signed in",
                { error in
                    if case .permissionDenied(let detail) = error { detail == "System is already initialized. Restore is only available on fresh installs." } else { false }
                }
            ) {
                _ = try await anonymous.backups.restore(archive: Data([0x1F, 0x8B, 0x08]))
            }
        }
    }
}

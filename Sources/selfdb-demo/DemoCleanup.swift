import Foundation
import SelfDB

/// What a part of the demo wrote to the server, removed when the part ends (also when it
/// fails), so the demo leaves a server as it found it and can run on it again: its rows, files
/// and buckets, and the `Note` table when this run made it.
///
/// A table that was there already (`tables.create(from:)` returns an existing table, SelfDB's
/// rule, e.g. one an earlier run left behind) stays, with the rows others wrote. The demo's
/// user accounts stay too: only an admin may delete a user.
@MainActor
final class DemoCleanup {
    private let selfdb: SelfDB
    let table: TableRead
    /// Whether this run made the table: a fresh demo user can own no table made before.
    let ownsTable: Bool
    private var rows: [UUID] = []
    private var files: [UUID] = []
    private var buckets: [UUID] = []

    init(selfdb: SelfDB, table: TableRead, userID: UUID) {
        self.selfdb = selfdb
        self.table = table
        ownsTable = table.ownerId == userID
    }

    func wrote(_ row: Note) { rows.append(row.id) }
    func removed(_ row: Note) { rows.removeAll { $0 == row.id } }
    func uploaded(_ fileID: UUID) { files.append(fileID) }
    func created(bucket: UUID) { buckets.append(bucket) }
    func removed(bucket: UUID) { buckets.removeAll { $0 == bucket } }

    /// Deletes what was recorded (rows, then files, buckets and the table if this run made it)
    /// and says so in one line. Something already gone counts as removed.
    func run() async throws {
        var problems: [String] = []
        func remove(_ what: String, _ ids: [UUID], _ delete: (UUID) async throws -> Void) async -> Int {
            var count = 0
            for id in ids {
                do {
                    try await delete(id)
                    count += 1
                } catch SelfDBError.notFound {
                    count += 1
                } catch {
                    problems.append("\(what) \(id): \(error)")
                }
            }
            return count
        }
        let table = table
        let rowCount = await remove("row", rows) { _ = try await self.selfdb.tables.data.deleteRow(table.id, rowId: $0.uuidString.lowercased(), idColumn: "id") }
        let fileCount = await remove("file", files) { try await self.selfdb.storage.files.delete($0) }
        let bucketCount = await remove("bucket", buckets) { try await self.selfdb.storage.buckets.delete($0) }
        var removed = [(rowCount, "row"), (fileCount, "file"), (bucketCount, "bucket")].filter { $0.0 > 0 }.map { "\($0.0) \($0.1)\($0.0 == 1 ? "" : "s")" }
        if ownsTable, await remove("table", [table.id], { _ = try await self.selfdb.tables.delete($0) }) == 1 {
            removed.append("the table \(table.name)")
        }
        rows = []
        files = []
        buckets = []
        let kept = ownsTable ? "" : " (the table \(table.name) was there before the demo: it stays, with the rows others wrote)"
        print("  cleaned up what this run wrote: \(removed.isEmpty ? "nothing" : removed.joined(separator: ", "))\(kept)")
        guard problems.isEmpty else {
            throw SelfDBError.invalidResponse("clean-up left something behind: \(problems.joined(separator: "; "))")
        }
    }
}

import CRDTSQLite
import Foundation
import Testing

/// Temporary database files for replicas, deleted when the scope ends.
final class TemporaryFiles {
    let directory: URL

    init() throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("crdt-tests-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    }

    deinit {
        try? FileManager.default.removeItem(at: directory)
    }

    func path(_ name: String) -> String {
        directory.appendingPathComponent(name).path
    }
}

/// `users (id INTEGER PRIMARY KEY, name TEXT, email TEXT)` tracked on a fresh node.
func usersNode(_ id: UInt64, _ files: TemporaryFiles) throws -> CRDTSQLite<Int64> {
    let db = try CRDTSQLite<Int64>(path: files.path("node\(id).db"), nodeId: id)
    try db.execute("CREATE TABLE IF NOT EXISTS users (id INTEGER PRIMARY KEY, name TEXT, email TEXT)")
    try db.enableCRDT(for: "users")
    return db
}

/// Every row of `table`, ordered by its first column.
func rows<ID>(_ db: CRDTSQLite<ID>, _ table: String = "users") throws -> [[SQLiteValue]] {
    try db.connection.execute("SELECT * FROM \"\(table)\" ORDER BY 1").all().map(\.values)
}

/// Sends everything each has to the other.
func syncBothWays<ID>(_ a: CRDTSQLite<ID>, _ b: CRDTSQLite<ID>) throws {
    _ = try b.mergeChanges(try a.getChangesSince(0))
    _ = try a.mergeChanges(try b.getChangesSince(0))
}

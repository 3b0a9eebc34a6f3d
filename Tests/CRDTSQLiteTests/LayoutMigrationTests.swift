import CRDTSQLite
import Foundation
import SelfDBTestSupport
import Testing

extension CRDTSuite {
    /// Files written by the first metadata layout (a row per record and per cell, until
    /// issue 17) are migrated when opened. `Fixtures/layout-v1.db` was written by that code:
    /// node 1 with `users` and `odd "name"` tracked, inserts, an update, deletes, a
    /// resurrection, a merge from node 2 and an added column; `layout-v1-changes.json` is its
    /// feed as that code read it, and its clock was 11.
    @Suite("CRDT layout migration")
    struct LayoutMigrationTests {
        static let firstLayoutClock: UInt64 = 11

        static func firstLayoutCopy(_ files: TemporaryFiles, _ name: String) throws -> String {
            let fixture = try #require(Bundle.module.url(forResource: "layout-v1", withExtension: "db", subdirectory: "Fixtures"))
            let path = files.path(name)
            try FileManager.default.copyItem(at: fixture, to: URL(fileURLWithPath: path))
            return path
        }

        static func firstLayoutFeed() throws -> [Change<Int64>] {
            let url = try #require(Bundle.module.url(forResource: "layout-v1-changes", withExtension: "json", subdirectory: "Fixtures"))
            return try JSONDecoder().decode([Change<Int64>].self, from: Data(contentsOf: url))
        }

        /// The order of changes within one cursor value is not part of the contract.
        static func canonical(_ changes: [Change<Int64>]) -> [Change<Int64>] {
            changes.sorted { ($0.localDbVersion, $0.tableName, $0.recordId, $0.columnName ?? "") < ($1.localDbVersion, $1.tableName, $1.recordId, $1.columnName ?? "") }
        }

        @Test func aFirstLayoutFileReadsTheSameAfterMigration() throws {
            let files = try TemporaryFiles()
            let path = try Self.firstLayoutCopy(files, "old.db")
            let db = try CRDTSQLite<Int64>(path: path, nodeId: 1)
            #expect(Set(db.trackedTables) == ["users", #"odd "name""#])
            #expect(try db.clock == Self.firstLayoutClock)
            #expect(Self.canonical(try db.getChangesSince(0)) == Self.canonical(try Self.firstLayoutFeed()))
            #expect(try db.tombstoneCount == 1)
            // The first layout's tables are gone; views of the same shape show the metadata.
            #expect(try db.connection.execute("SELECT type FROM sqlite_master WHERE name IN ('_crdt_records', '_crdt_columns')").all().map { $0[0] as String? } == ["view", "view"])
            #expect(try db.connection.execute("SELECT count(*) FROM _crdt_columns WHERE tbl = 'users' AND pk = 1").one()[0] == 3)

            // It keeps working: one tick per commit from where it was, and it reopens as is.
            try db.execute("BEGIN; UPDATE users SET name = 'Ada 2' WHERE id = 1; INSERT INTO users (id, name) VALUES (30, 'new'); COMMIT;")
            #expect(try db.clock == Self.firstLayoutClock + 1)
            let feed = try db.getChangesSince(0)
            let reopened = try CRDTSQLite<Int64>(path: path, nodeId: 1)
            #expect(try reopened.getChangesSince(0) == feed)
        }

        @Test func aMigratedReplicaSyncsWithAFreshOne() throws {
            let files = try TemporaryFiles()
            let old = try CRDTSQLite<Int64>(path: try Self.firstLayoutCopy(files, "old.db"), nodeId: 1)
            let fresh = try Self.freshReplica(files, nodeId: 2)
            try syncBothWays(old, fresh)
            #expect(try rows(old) == rows(fresh))
            #expect(try rows(old, #"odd ""name"""#) == rows(fresh, #"odd ""name"""#))
            #expect(try old.mergeChanges(try fresh.getChangesSince(0)).isEmpty)
        }

        /// The convergence property with replicas of both histories: copies of the first-layout
        /// file (migrated, one opened as another node) and fresh replicas, random writes and
        /// syncs, then a full exchange.
        @Test func replicasOfBothLayoutsConverge() throws {
            var failures: [UInt64] = []
            for history in 0..<25 {
                let seed = 0x01D_0000 + UInt64(history)
                if try !Self.converges(seed: seed) { failures.append(seed) }
            }
            #expect(failures.isEmpty, "seeds that diverged: \(failures.prefix(5))")
        }

        static func freshReplica(_ files: TemporaryFiles, nodeId: UInt64) throws -> CRDTSQLite<Int64> {
            let db = try CRDTSQLite<Int64>(path: files.path("fresh\(nodeId).db"), nodeId: nodeId)
            try db.execute("CREATE TABLE users (id INTEGER PRIMARY KEY, name TEXT, email TEXT, age INTEGER)")
            try db.execute(#"CREATE TABLE "odd ""name""" (id INTEGER PRIMARY KEY, v)"#)
            try db.enableCRDT(for: "users")
            try db.enableCRDT(for: #"odd "name""#)
            return db
        }

        static func converges(seed: UInt64) throws -> Bool {
            let files = try TemporaryFiles()
            var random = SplitMix64(seed: seed)
            let replicas = [
                try CRDTSQLite<Int64>(path: try firstLayoutCopy(files, "old1.db"), nodeId: 1),
                try CRDTSQLite<Int64>(path: try firstLayoutCopy(files, "old4.db"), nodeId: 4),
                try freshReplica(files, nodeId: 2),
                try freshReplica(files, nodeId: 3),
            ]
            for _ in 0..<(20 + Int(random.next() % 60)) {
                let replica = replicas[Int(random.next() % 4)]
                let id = Int64(1 + random.next() % 24)
                switch random.next() % 10 {
                case 0..<3:
                    try replica.connection.execute("INSERT OR IGNORE INTO users (id, name, age) VALUES (?, ?, ?)", id, "n\(random.next() % 5)", Int64(random.next() % 90))
                case 3..<5:
                    try replica.connection.execute("UPDATE users SET email = ? WHERE id = ?", random.next() % 3 == 0 ? nil : "e\(random.next() % 5)", id)
                case 5..<6:
                    try replica.connection.execute(#"INSERT OR REPLACE INTO "odd ""name""" VALUES (?, ?)"#, id % 12, Int64(random.next() % 7))
                case 6..<8:
                    try replica.connection.execute("DELETE FROM users WHERE id = ?", id)
                default:
                    let from = replicas[Int(random.next() % 4)]
                    let to = replicas[Int(random.next() % 4)]
                    guard from !== to else { continue }
                    _ = try to.mergeChanges(try from.getChangesSince(random.next() % 2 == 0 ? 0 : random.next() % 40))
                }
            }
            for _ in 0..<replicas.count {
                var accepted = 0
                for source in replicas {
                    let changes = try source.getChangesSince(0)
                    for target in replicas where target !== source {
                        accepted += try target.mergeChanges(changes).count
                    }
                }
                if accepted == 0 { break }
            }
            let users = try rows(replicas[0])
            let odd = try rows(replicas[0], #"odd ""name"""#)
            return try replicas.allSatisfy { try rows($0) == users && rows($0, #"odd ""name"""#) == odd }
        }
    }
}

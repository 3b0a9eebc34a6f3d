import CRDTSQLite
import Foundation
import Testing

extension CRDTSuite {
    /// The contract's acceptance scenarios.
    @Suite("CRDT scenarios")
    struct ScenarioTests {
        @Test func concurrentUpdatesOfOneColumnConvergeAndDifferentColumnsAreBothKept() throws {
            let files = try TemporaryFiles()
            let a = try usersNode(1, files)
            let b = try usersNode(2, files)
            try a.execute("INSERT INTO users VALUES (1, 'Ada', 'ada@a')")
            try syncBothWays(a, b)
            try a.execute("UPDATE users SET name = 'Ada A' WHERE id = 1")
            try b.execute("UPDATE users SET name = 'Ada B', email = 'ada@b' WHERE id = 1")
            try syncBothWays(a, b)
            #expect(try rows(a) == rows(b))
            // Same column version and db version: the higher node id wins the name.
            #expect(try rows(a) == [[.integer(1), .text("Ada B"), .text("ada@b")]])
        }

        @Test func deletePropagatesAndBothNodesKeepOneTombstone() throws {
            let files = try TemporaryFiles()
            let a = try usersNode(1, files)
            let b = try usersNode(2, files)
            try a.execute("INSERT INTO users VALUES (1, 'Ada', NULL), (2, 'Bo', NULL)")
            try syncBothWays(a, b)
            try b.execute("DELETE FROM users WHERE id = 1")
            // A concurrent edit of the deleted record loses to the tombstone.
            try a.execute("UPDATE users SET email = 'late@a' WHERE id = 1")
            try syncBothWays(a, b)
            #expect(try rows(a) == [[.integer(2), .text("Bo"), .null]])
            #expect(try rows(a) == rows(b))
            #expect(try a.tombstoneCount == 1 && b.tombstoneCount == 1)
            #expect(try b.getChangesSince(0).filter(\.isTombstone).count == 1)
        }

        @Test func reMergingTheSameBatchAcceptsNothing() throws {
            let files = try TemporaryFiles()
            let a = try usersNode(1, files)
            let b = try usersNode(2, files)
            try a.execute("INSERT INTO users VALUES (1, 'Ada', 'x'), (2, 'Bo', 'y')")
            try a.execute("DELETE FROM users WHERE id = 2")
            let batch = try a.getChangesSince(0)
            #expect(try !b.mergeChanges(batch).isEmpty)
            let clock = try b.clock
            #expect(try b.mergeChanges(batch).isEmpty)
            #expect(try b.mergeChanges(batch.reversed()).isEmpty)
            #expect(try b.clock == clock)
            // Changes a node already has are not accepted back either.
            #expect(try a.mergeChanges(try b.getChangesSince(0)).isEmpty)
        }

        @Test func aRolledBackTransactionLeavesTheClockAndFeedUnchanged() throws {
            let files = try TemporaryFiles()
            let a = try usersNode(1, files)
            try a.execute("INSERT INTO users VALUES (1, 'Ada', NULL)")
            let clock = try a.clock
            let changes = try a.getChangesSince(0)
            #expect(throws: CRDTError.self) {
                try a.execute("BEGIN; INSERT INTO users VALUES (2, 'Bo', NULL); UPDATE users SET name = 'x' WHERE id = 1; INSERT INTO users VALUES (1, 'dup', NULL); COMMIT;")
            }
            try? a.execute("ROLLBACK")
            #expect(try a.clock == clock)
            #expect(try a.getChangesSince(0) == changes)
            #expect(try rows(a) == [[.integer(1), .text("Ada"), .null]])
        }

        @Test func rowsClockAndChangesPersistAcrossReopen() throws {
            let files = try TemporaryFiles()
            var a: CRDTSQLite<Int64>? = try usersNode(1, files)
            try a?.execute("INSERT INTO users VALUES (1, 'Ada', NULL)")
            try a?.execute("DELETE FROM users WHERE id = 1")
            try a?.execute("INSERT INTO users VALUES (2, 'Bo', 'b')")
            let clock = try #require(try a?.clock)
            let changes = try #require(try a?.getChangesSince(0))
            a = nil
            let reopened = try CRDTSQLite<Int64>(path: files.path("node1.db"), nodeId: 1)
            #expect(reopened.trackedTables == ["users"])
            #expect(try reopened.clock == clock)
            #expect(try reopened.getChangesSince(0) == changes)
            try reopened.execute("UPDATE users SET name = 'Bob' WHERE id = 2")
            #expect(try reopened.clock == clock + 1)
        }

        @Test func nullAndIntegerEdgeValuesRoundTripThroughJSON() throws {
            let files = try TemporaryFiles()
            let a = try CRDTSQLite<Int64>(path: files.path("a.db"), nodeId: 1)
            let b = try CRDTSQLite<Int64>(path: files.path("b.db"), nodeId: 2)
            for db in [a, b] {
                try db.execute("CREATE TABLE v (id INTEGER PRIMARY KEY, i INTEGER, r REAL, t TEXT, b BLOB)")
                try db.enableCRDT(for: "v")
            }
            try a.execute("INSERT INTO v VALUES (-9223372036854775808, 9223372036854775807, -0.5, 'it''s \"quoted\" ✓', x'00ff')")
            try a.execute("INSERT INTO v VALUES (9223372036854775807, -9223372036854775808, 1e300, '', x'')")
            try a.execute("INSERT INTO v VALUES (0, NULL, NULL, NULL, NULL)")
            let json = try JSONEncoder().encode(try a.getChangesSince(0))
            let decoded = try JSONDecoder().decode([Change<Int64>].self, from: json)
            #expect(decoded == (try a.getChangesSince(0)))
            _ = try b.mergeChanges(decoded)
            #expect(try rows(a, "v") == rows(b, "v"))
            #expect(try rows(b, "v").first { $0[0] == .integer(0) } == [.integer(0), .null, .null, .null, .null])
            #expect(decoded.contains { $0.columnName == "i" && $0.value == .null && $0.isColumnDeletion })
        }

        @Test func addColumnKeepsTrackingAndSyncsToAPeerWithTheColumn() throws {
            let files = try TemporaryFiles()
            let a = try usersNode(1, files)
            let b = try usersNode(2, files)
            try a.execute("INSERT INTO users VALUES (1, 'Ada', NULL)")
            try syncBothWays(a, b)
            for db in [a, b] { try db.execute("ALTER TABLE users ADD COLUMN age INTEGER") }
            try a.execute("UPDATE users SET age = 36 WHERE id = 1")
            try a.execute("INSERT INTO users (id, name, age) VALUES (2, 'Bo', 7)")
            try syncBothWays(a, b)
            #expect(try rows(b) == [[.integer(1), .text("Ada"), .null, .integer(36)], [.integer(2), .text("Bo"), .null, .integer(7)]])
            #expect(try rows(a) == rows(b))
        }

        @Test func destructiveSchemaChangesAreRefusedAndLeaveTheSchemaAlone() throws {
            let files = try TemporaryFiles()
            let a = try usersNode(1, files)
            for statement in ["ALTER TABLE users DROP COLUMN email", "ALTER TABLE users RENAME COLUMN name TO full_name", "DROP TABLE users", "ALTER TABLE users RENAME TO people"] {
                #expect(throws: CRDTError.self, "\(statement)") {
                    do {
                        try a.execute(statement)
                    } catch let error as CRDTError {
                        guard case .unsupportedSchemaChange = error else {
                            Issue.record("\(statement): \(error)")
                            throw error
                        }
                        throw error
                    }
                }
            }
            #expect(try a.connection.execute("SELECT name FROM pragma_table_info('users') ORDER BY cid").all().map { $0[0] as String? } == ["id", "name", "email"])
            try a.execute("INSERT INTO users VALUES (1, 'Ada', 'a')")
            #expect(try rows(a) == [[.integer(1), .text("Ada"), .text("a")]])
            #expect(throws: CRDTError.self) { try a.execute("UPDATE users SET id = 5 WHERE id = 1") }
            // Untracked tables are the app's business.
            try a.execute("CREATE TABLE scratch (x); DROP TABLE scratch")
        }

        @Test func uuidBlobKeysAndExcludingByOrigin() throws {
            let files = try TemporaryFiles()
            func node(_ id: UInt64) throws -> CRDTSQLite<UUID> {
                let db = try CRDTSQLite<UUID>(path: files.path("u\(id).db"), nodeId: id)
                try db.execute("CREATE TABLE items (id BLOB PRIMARY KEY, title TEXT)")
                try db.enableCRDT(for: "items")
                return db
            }
            let a = try node(1)
            let b = try node(2)
            let c = try node(3)
            let first = UUID()
            let second = UUID()
            try a.connection.execute("INSERT INTO items VALUES (?, ?)", first, "from a")
            try b.connection.execute("INSERT INTO items VALUES (?, ?)", second, "from b")
            _ = try c.mergeChanges(try a.getChangesSince(0))
            _ = try c.mergeChanges(try b.getChangesSince(0))
            // c relays both; sending to b, b's own changes are left out.
            let toB = try c.getChangesSinceExcluding(0, excluding: [2])
            #expect(Set(toB.map(\.recordId)) == [first])
            #expect(toB.allSatisfy { $0.nodeId == 1 })
            _ = try b.mergeChanges(toB)
            #expect(try rows(b, "items") == rows(c, "items"))
            #expect(try rows(c, "items").count == 2)
            #expect(throws: CRDTError.invalidRecordIDType) {
                let wrong = try CRDTSQLite<UUID>(path: files.path("wrong.db"), nodeId: 9)
                try wrong.execute("CREATE TABLE t (id INTEGER PRIMARY KEY, x)")
                try wrong.enableCRDT(for: "t")
            }
        }

        @Test func tombstoneCompactionBoundary() throws {
            let files = try TemporaryFiles()
            let a = try usersNode(1, files)
            try a.execute("INSERT INTO users VALUES (1, 'a', NULL), (2, 'b', NULL), (3, 'c', NULL)")
            try a.execute("DELETE FROM users WHERE id = 1")
            let firstDelete = try a.clock
            try a.execute("DELETE FROM users WHERE id = 2")
            try a.execute("DELETE FROM users WHERE id = 3")
            #expect(try a.tombstoneCount == 3)
            // Strictly below: the tombstone at exactly the acknowledged version stays.
            #expect(try a.compactTombstones(minAcknowledgedVersion: firstDelete) == 0)
            #expect(try a.compactTombstones(minAcknowledgedVersion: firstDelete + 1) == 1)
            #expect(try a.tombstoneCount == 2)
            #expect(try a.compactTombstones(minAcknowledgedVersion: .max) == 2)
        }

        @Test func sixHundredChangesInOneTransactionAndPagingNeverSplitsAWrite() throws {
            let files = try TemporaryFiles()
            let a = try usersNode(1, files)
            let b = try usersNode(2, files)
            try a.connection.transaction {
                for id in 1...300 {
                    try a.connection.execute("INSERT INTO users VALUES (?, ?, ?)", id, "user \(id)", "u\(id)@x")
                }
            }
            let all = try a.getChangesSince(0)
            #expect(all.count == 900)
            var cursor: UInt64 = 0
            var pages = 0
            while true {
                let page = try a.getChangesSince(cursor, maxChanges: 100)
                if page.isEmpty { break }
                pages += 1
                #expect(page.count <= 100 && page.count % 3 == 0, "a write's record and two cells stay together")
                _ = try b.mergeChanges(page)
                cursor = try #require(page.last).localDbVersion
            }
            #expect(pages >= 9)
            #expect(try rows(a) == rows(b))
            // One write bigger than the page comes whole.
            try a.execute("ALTER TABLE users ADD COLUMN c1; ALTER TABLE users ADD COLUMN c2; ALTER TABLE users ADD COLUMN c3")
            try a.execute("INSERT INTO users VALUES (1000, 'n', 'e', 1, 2, 3)")
            #expect(try a.getChangesSince(cursor, maxChanges: 2).count == 6)
        }

        @Test func manyTablesWithAwkwardNamesAndAnotherConnectionsWrites() throws {
            let files = try TemporaryFiles()
            let path = files.path("names.db")
            let a = try CRDTSQLite<Int64>(path: path, nodeId: 1)
            let b = try CRDTSQLite<Int64>(path: files.path("names-b.db"), nodeId: 2)
            let awkward = #"weird "table"; DROP TABLE x; --"#
            for db in [a, b] {
                try db.execute(#"CREATE TABLE "weird ""table""; DROP TABLE x; --" (id INTEGER PRIMARY KEY, "it's" TEXT)"#)
                try db.execute("CREATE TABLE plain (id INTEGER PRIMARY KEY, v)")
                try db.enableCRDT(for: awkward)
                try db.enableCRDT(for: "plain")
            }
            try a.execute(#"INSERT INTO "weird ""table""; DROP TABLE x; --" VALUES (1, 'o''k')"#)
            // Another connection to the same file: the triggers track it too.
            let other = try SQLite(path)
            try other.execute("INSERT INTO plain VALUES (7, 'from another connection')")
            _ = try b.mergeChanges(try a.getChangesSince(0))
            #expect(try rows(b, "plain") == [[.integer(7), .text("from another connection")]])
            #expect(try b.connection.execute(#"SELECT "it's" FROM "weird ""table""; DROP TABLE x; --""#).one()[0] == "o'k")
            #expect(Set(b.trackedTables) == [awkward, "plain"])
        }

        @Test func mergeInsideTheCallersTransactionRollsBackWithIt() throws {
            let files = try TemporaryFiles()
            let a = try usersNode(1, files)
            let b = try usersNode(2, files)
            try a.execute("INSERT INTO users VALUES (1, 'Ada', NULL)")
            let changes = try a.getChangesSince(0)
            #expect(throws: CRDTError.self) {
                try b.connection.transaction {
                    _ = try b.mergeChanges(changes)
                    #expect(try rows(b).count == 1)
                    throw CRDTError.transactionFailed("caller gives up")
                }
            }
            #expect(try rows(b).isEmpty)
            #expect(try b.mergeChanges(changes).count == changes.count)
            // After the merge, local writes are tracked again (the guard flag was reset).
            try b.execute("UPDATE users SET email = 'after@merge' WHERE id = 1")
            #expect(try b.getChangesSince(0).contains { $0.value == .text("after@merge") && $0.nodeId == 2 })
        }

        @Test func resurrectionAfterDeleteWinsWithAHigherCausalLength() throws {
            let files = try TemporaryFiles()
            let a = try usersNode(1, files)
            let b = try usersNode(2, files)
            try a.execute("INSERT INTO users VALUES (1, 'Ada', 'old')")
            try syncBothWays(a, b)
            try a.execute("DELETE FROM users WHERE id = 1")
            try a.execute("INSERT INTO users VALUES (1, 'Ada again', NULL)")
            // b never saw the delete on its own: it learns delete + resurrection at once.
            try syncBothWays(a, b)
            #expect(try rows(b) == [[.integer(1), .text("Ada again"), .null]])
            #expect(try rows(a) == rows(b))
            #expect(try a.getChangesSince(0).contains { $0.isRecordCreation && $0.columnVersion == 3 })
        }

        @Test func badChangesAreRefusedWholeAndNothingIsWritten() throws {
            let files = try TemporaryFiles()
            let a = try usersNode(1, files)
            let b = try usersNode(2, files)
            try a.execute("INSERT INTO users VALUES (1, 'Ada', NULL)")
            let good = try a.getChangesSince(0)
            let unknownColumn = Change<Int64>(tableName: "users", recordId: 2, columnName: "password", value: .text("x"), columnVersion: 1, dbVersion: 1, nodeId: 1, localDbVersion: 9)
            #expect(throws: CRDTError.invalidChange("users has no replicated column 'password'")) { try b.mergeChanges(good + [unknownColumn]) }
            let unknownTable = Change<Int64>(tableName: "secrets", recordId: 1, columnName: "x", value: .null, columnVersion: 1, dbVersion: 1, nodeId: 1, localDbVersion: 1)
            #expect(throws: CRDTError.self) { try b.mergeChanges([unknownTable]) }
            let overflowing = Change<Int64>(tableName: "users", recordId: 1, columnName: "name", value: .text("x"), columnVersion: 1, dbVersion: .max, nodeId: 1, localDbVersion: 1)
            #expect(throws: CRDTError.clockOverflow) { try b.mergeChanges([overflowing]) }
            #expect(try rows(b).isEmpty)
            #expect(try b.clock == 0)
            #expect(throws: DecodingError.self) {
                try JSONDecoder().decode([Change<Int64>].self, from: Data(#"[{"recordId":"one","columnVersion":1,"dbVersion":1,"nodeId":1}]"#.utf8))
            }
            // A change without a table name is accepted while one table is tracked.
            let legacy = try JSONDecoder().decode(
                [Change<Int64>].self,
                from: Data(#"[{"recordId":5,"columnName":"name","value":{"type":"text","value":"Eve"},"columnVersion":1,"dbVersion":3,"nodeId":1,"localDbVersion":1,"flags":0}]"#.utf8)
            )
            #expect(try b.mergeChanges(legacy).count == 1)
            #expect(try rows(b) == [[.integer(5), .text("Eve"), .null]])
        }

        @Test func theClockStopsAtInt64MaxInsteadOfWrapping() throws {
            let files = try TemporaryFiles()
            let a = try usersNode(1, files)
            let b = try usersNode(2, files)
            let late = Change<Int64>(tableName: "users", recordId: 1, columnName: "name", value: .text("x"), columnVersion: 1, dbVersion: UInt64(Int64.max), nodeId: 2, localDbVersion: 1)
            _ = try a.mergeChanges([late])
            #expect(try a.clock == UInt64(Int64.max))
            #expect(throws: CRDTError.clockOverflow) { try a.execute("INSERT INTO users VALUES (2, 'y', NULL)") }
            #expect(try rows(a).count == 1)
            _ = b
        }
    }
}

extension CRDTSuite {
    /// Merges inside a transaction the app opened with plain SQL (issue 17): the merge is a
    /// savepoint in it, committed or rolled back with it.
    @Suite("CRDT merges in the app's own transaction")
    struct AppTransactionTests {
        @Test func aMergeJoinsATransactionOpenedWithBEGIN() throws {
            let files = try TemporaryFiles()
            let a = try usersNode(1, files)
            let b = try usersNode(2, files)
            try a.execute("INSERT INTO users VALUES (1, 'Ada', 'ada@a'), (2, 'Bo', NULL)")
            let batch = try a.getChangesSince(0)

            try b.execute("BEGIN")
            let accepted = try b.mergeChanges(batch)
            #expect(accepted.count == batch.count)
            try b.execute("INSERT INTO users VALUES (3, 'Cy', NULL)")
            try b.execute("COMMIT")
            #expect(try rows(b).count == 3)

            // Rolled back with the app's transaction: rows, metadata and clock alike.
            let c = try usersNode(3, files)
            let clock = try c.clock
            try c.execute("BEGIN")
            _ = try c.mergeChanges(batch)
            try c.execute("ROLLBACK")
            #expect(try rows(c).isEmpty)
            #expect(try c.clock == clock)
            #expect(try c.mergeChanges(batch).count == batch.count, "nothing of the rolled-back merge stayed")
        }
    }
}

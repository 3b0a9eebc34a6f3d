import CRDTSQLite
import Foundation
import Testing

extension CRDTSuite {
    /// One commit, one clock tick (issue 17): a local commit takes `clock + 1` however many
    /// rows it writes, as cr-sqlite's db_version.
    @Suite("CRDT clock: one tick per commit")
    struct ClockTests {
        @Test func fiftyOneInsertsInOneTransactionTickOnceAndShareTheVersion() throws {
            let files = try TemporaryFiles()
            let a = try usersNode(1, files)
            try a.execute("INSERT INTO users VALUES (100, 'before', NULL)")
            let before = try a.clock
            let cursor = try #require(try a.getChangesSince(0).last).localDbVersion
            try a.connection.transaction {
                for id in 1...51 {
                    try a.connection.execute("INSERT INTO users VALUES (?, ?, ?)", id, "user \(id)", "u\(id)@x")
                }
            }
            #expect(try a.clock == before + 1)
            let written = try a.getChangesSince(cursor)
            #expect(written.count == 51 * 3)
            #expect(written.allSatisfy { $0.dbVersion == before + 1 })
            // The feed's cursor still tells the writes apart (paging never splits one).
            #expect(Set(written.map(\.localDbVersion)).count == 51)
        }

        @Test func oneStatementWritingManyRowsTicksOnce() throws {
            let files = try TemporaryFiles()
            let a = try usersNode(1, files)
            let before = try a.clock
            try a.execute("INSERT INTO users VALUES (1, 'a', NULL), (2, 'b', NULL), (3, 'c', NULL)")
            #expect(try a.clock == before + 1)
            try a.execute("UPDATE users SET email = 'x'")
            #expect(try a.clock == before + 2)
            #expect(try a.getChangesSince(0).filter { $0.columnName == "email" }.allSatisfy { $0.dbVersion == before + 2 })
        }

        @Test func rollbackLeavesTheClockAndTheChangesAsTheyWere() throws {
            let files = try TemporaryFiles()
            let a = try usersNode(1, files)
            try a.execute("INSERT INTO users VALUES (1, 'Ada', NULL)")
            let clock = try a.clock
            let changes = try a.getChangesSince(0)
            try a.execute("BEGIN")
            try a.execute("INSERT INTO users VALUES (2, 'Bo', NULL)")
            try a.execute("UPDATE users SET name = 'Ada B' WHERE id = 1")
            try a.execute("DELETE FROM users WHERE id = 1")
            #expect(try a.clock == clock + 1, "inside the transaction, its changes carry the next version")
            try a.execute("ROLLBACK")
            #expect(try a.clock == clock)
            #expect(try a.getChangesSince(0) == changes)
            // The next transaction takes the version the rolled-back one would have had.
            try a.execute("INSERT INTO users VALUES (3, 'Cy', NULL)")
            #expect(try a.clock == clock + 1)
        }

        @Test func aSavepointReleasedInsideATransactionDoesNotTickOnItsOwn() throws {
            let files = try TemporaryFiles()
            let a = try usersNode(1, files)
            let before = try a.clock
            try a.execute("BEGIN")
            try a.execute("INSERT INTO users VALUES (1, 'Ada', NULL)")
            try a.execute("SAVEPOINT inner")
            try a.execute("INSERT INTO users VALUES (2, 'Bo', NULL)")
            try a.execute("RELEASE inner")
            try a.execute("SAVEPOINT discarded")
            try a.execute("INSERT INTO users VALUES (3, 'Cy', NULL)")
            try a.execute("ROLLBACK TO discarded")
            try a.execute("RELEASE discarded")
            try a.connection.transaction {
                try a.connection.execute("UPDATE users SET email = 'ada@a' WHERE id = 1")
            }
            try a.execute("COMMIT")
            #expect(try a.clock == before + 1)
            let changes = try a.getChangesSince(0)
            #expect(Set(changes.map(\.recordId)) == [1, 2])
            #expect(changes.allSatisfy { $0.dbVersion == before + 1 })
        }

        @Test func twoTransactionsTickTwice() throws {
            let files = try TemporaryFiles()
            let a = try usersNode(1, files)
            let before = try a.clock
            try a.connection.transaction {
                try a.connection.execute("INSERT INTO users VALUES (1, 'Ada', NULL)")
                try a.connection.execute("INSERT INTO users VALUES (2, 'Bo', NULL)")
            }
            try a.connection.transaction {
                try a.connection.execute("UPDATE users SET name = 'Ada A' WHERE id = 1")
                try a.connection.execute("DELETE FROM users WHERE id = 2")
            }
            #expect(try a.clock == before + 2)
            #expect(Set(try a.getChangesSince(0).map(\.dbVersion)) == [before + 1, before + 2])
        }

        @Test func aMergeRaisesTheClockToTheRemoteVersionAndLocalCommitsFollowIt() throws {
            let files = try TemporaryFiles()
            let a = try usersNode(1, files)
            let b = try usersNode(2, files)
            for id in 1...5 { try b.connection.execute("INSERT INTO users VALUES (?, 'b', NULL)", id) }
            #expect(try b.clock == 5)
            try a.execute("INSERT INTO users VALUES (10, 'a', NULL)")
            #expect(try a.clock == 1)
            _ = try a.mergeChanges(try b.getChangesSince(0))
            #expect(try a.clock == 5)
            // Merging older changes never lowers it; a local commit takes the next version.
            _ = try a.mergeChanges(try b.getChangesSince(0).filter { $0.dbVersion == 1 })
            #expect(try a.clock == 5)
            try a.execute("UPDATE users SET name = 'a2' WHERE id = 10")
            #expect(try a.clock == 6)
            // Across reopening, too (the clock is read back from the metadata).
            let path = files.path("node1.db")
            let reopened = try CRDTSQLite<Int64>(path: path, nodeId: 1)
            #expect(try reopened.clock == 6)
        }

        @Test func localWritesAroundAMergeInOneTransactionShareOneVersion() throws {
            let files = try TemporaryFiles()
            let a = try usersNode(1, files)
            let b = try usersNode(2, files)
            for id in 1...3 { try b.connection.execute("INSERT INTO users VALUES (?, 'b', NULL)", id) }
            try a.execute("BEGIN")
            try a.execute("INSERT INTO users VALUES (10, 'before', NULL)")
            _ = try a.mergeChanges(try b.getChangesSince(0))
            try a.execute("INSERT INTO users VALUES (11, 'after', NULL)")
            try a.execute("COMMIT")
            let local = try a.getChangesSince(0).filter { $0.nodeId == 1 }
            #expect(Set(local.map(\.dbVersion)) == [1])
            // The clock covers both what was merged and what was written.
            #expect(try a.clock == 3)
            try a.execute("UPDATE users SET name = 'later' WHERE id = 10")
            #expect(try a.getChangesSince(0).first { $0.value == .text("later") }?.dbVersion == 4)
        }

        @Test func compactingTheLatestTombstoneKeepsTheClockAndTheCursor() throws {
            let files = try TemporaryFiles()
            let a = try usersNode(1, files)
            try a.execute("INSERT INTO users VALUES (1, 'Ada', NULL)")
            try a.execute("DELETE FROM users WHERE id = 1")
            let clock = try a.clock
            let cursor = try #require(try a.getChangesSince(0).last).localDbVersion
            #expect(try a.compactTombstones(minAcknowledgedVersion: .max) == 1)
            #expect(try a.clock == clock)
            try a.execute("INSERT INTO users VALUES (2, 'Bo', NULL)")
            #expect(try a.clock == clock + 1)
            #expect(try a.getChangesSince(cursor).count == 3, "a new write gets a cursor past the compacted one")
        }

        @Test func writesFromAnotherStoreConnectionTickOncePerTransaction() throws {
            let files = try TemporaryFiles()
            let a = try usersNode(1, files)
            let other = try SQLite(files.path("node1.db"))
            try other.transaction {
                for id in 1...10 { try other.execute("INSERT INTO users VALUES (?, 'other', NULL)", id) }
            }
            #expect(try a.clock == 1)
            #expect(try a.getChangesSince(0).allSatisfy { $0.dbVersion == 1 && $0.nodeId == 1 })
        }

        /// Connections opened by something other than SelfDBStore lack the tracking functions:
        /// their writes to tracked tables fail whole, with a message naming the function, and
        /// nothing is written untracked. Reads work.
        @Test func aForeignConnectionCannotWriteTrackedTablesAndLosesNothing() throws {
            let files = try TemporaryFiles()
            let a = try usersNode(1, files)
            try a.execute("INSERT INTO users VALUES (1, 'Ada', NULL)")
            let changes = try a.getChangesSince(0)
            var foreign: OpaquePointer?
            #expect(sqlite3_open_v2(files.path("node1.db"), &foreign, SQLITE_OPEN_READWRITE, nil) == SQLITE_OK)
            defer { sqlite3_close_v2(foreign) }
            for statement in ["INSERT INTO users VALUES (2, 'Bo', NULL)", "UPDATE users SET name = 'x' WHERE id = 1", "DELETE FROM users WHERE id = 1"] {
                var message: UnsafeMutablePointer<CChar>?
                let code = sqlite3_exec(foreign, statement, nil, nil, &message)
                let text = message.map { String(cString: $0) } ?? ""
                sqlite3_free(message)
                #expect(code == SQLITE_ERROR, "\(statement)")
                #expect(text.contains("no such function: crdt_"), "\(statement): \(text)")
            }
            #expect(sqlite3_exec(foreign, "SELECT count(*) FROM users", nil, nil, nil) == SQLITE_OK)
            #expect(try rows(a) == [[.integer(1), .text("Ada"), .null]])
            #expect(try a.getChangesSince(0) == changes)
        }
    }
}

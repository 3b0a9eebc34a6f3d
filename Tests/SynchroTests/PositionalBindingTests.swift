import Foundation
import GRDB
import GRDBBinding
import Testing

/// `Statement.execute(binding:)` and `bind(_:)`: every storage class round-trips, a wrong
/// count is a typed error, a statement whose last run failed runs again, and GRDB's
/// observers still see the changes.
@Suite("Binding values straight into a statement")
struct PositionalBindingTests {
    @Test func everyStorageClassRoundTrips() throws {
        let queue = try DatabaseQueue()
        try queue.write { db in
            try db.execute(sql: "CREATE TABLE t (a, b, c, d, e)")
            let values: [DatabaseValue] = [.null, 42.databaseValue, 2.5.databaseValue, "caf\u{e9} \u{1F600}".databaseValue, Data([0, 1, 255]).databaseValue]
            try db.cachedStatement(sql: "INSERT INTO t VALUES (?, ?, ?, ?, ?)").execute(binding: values)
            let select = try db.cachedStatement(sql: "SELECT * FROM t WHERE b = ?")
            try select.bind([42.databaseValue])
            let row = try Row.fetchOne(select)
            #expect(row.map { Array($0.databaseValues) } == [.null, 42.databaseValue, 2.5.databaseValue, "caf\u{e9} \u{1F600}".databaseValue, Data([0, 1, 255]).databaseValue])
            // The same statement, rebound: the old values do not linger.
            try select.bind([7.databaseValue])
            #expect(try Row.fetchOne(select) == nil)
        }
    }

    @Test func aWrongCountIsAMisuseError() throws {
        let queue = try DatabaseQueue()
        try queue.write { db in
            try db.execute(sql: "CREATE TABLE t (a)")
            let insert = try db.cachedStatement(sql: "INSERT INTO t VALUES (?)")
            #expect(throws: DatabaseError.self) { try insert.execute(binding: []) }
            #expect(throws: DatabaseError.self) { try insert.execute(binding: [1.databaseValue, 2.databaseValue]) }
            #expect(try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM t") == 0)
        }
    }

    @Test func aStatementWhoseLastRunFailedRunsAgain() throws {
        let queue = try DatabaseQueue()
        try queue.write { db in
            try db.execute(sql: "CREATE TABLE t (a PRIMARY KEY)")
            let insert = try db.cachedStatement(sql: "INSERT INTO t VALUES (?)")
            try insert.execute(binding: [1.databaseValue])
            #expect(throws: DatabaseError.self) { try insert.execute(binding: [1.databaseValue]) }
            try insert.execute(binding: [2.databaseValue])
            // GRDB's own arguments on the same cached statement after ours, and ours after it.
            try db.cachedStatement(sql: "INSERT INTO t VALUES (?)").execute(arguments: [3])
            try insert.execute(binding: [4.databaseValue])
            #expect(try Int.fetchAll(db, sql: "SELECT a FROM t ORDER BY a") == [1, 2, 3, 4])
        }
    }

    @Test func observersSeeTheChanges() throws {
        let queue = try DatabaseQueue()
        try queue.write { db in try db.execute(sql: "CREATE TABLE t (a)") }
        let observer = ChangeCounter()
        queue.add(transactionObserver: observer)
        try queue.write { db in
            try db.cachedStatement(sql: "INSERT INTO t VALUES (?)").execute(binding: [1.databaseValue])
        }
        #expect(observer.changes == 1)
    }

    private final class ChangeCounter: TransactionObserver, @unchecked Sendable {
        // Written on the database's queue, read after the write returned.
        private(set) var changes = 0
        func observes(eventsOfKind eventKind: DatabaseEventKind) -> Bool { true }
        func databaseDidChange(with event: DatabaseEvent) { changes += 1 }
        func databaseDidCommit(_ db: Database) {}
        func databaseDidRollback(_ db: Database) {}
    }
}

import Foundation
import GRDB
import GRDBBinding
import Testing

/// `MultiRowStatement`: rows go many to a statement and land exactly as one-row statements in
/// the same order would put them, whatever the count and across batch boundaries; a bad row is
/// a typed error that loses none of the rows waiting; a failing statement writes none of its rows.
@Suite("Rows written many to a statement")
struct MultiRowStatementTests {
    /// `INSERT INTO t (seq, v0, v1, …) VALUES …`, keyed by `seq`.
    private static func writer(columns: Int, in db: Database) throws -> MultiRowStatement {
        let names = (0..<columns).map { "v\($0)" }
        try db.execute(sql: "CREATE TABLE t (n INTEGER PRIMARY KEY, \(names.joined(separator: ", ")))")
        return MultiRowStatement(columnCount: columns, in: db) { rows in "INSERT INTO t (\(names.joined(separator: ", "))) VALUES \(rows)" }
    }

    @Test(arguments: [(1, 0), (1, 1), (5, 63), (5, 64), (5, 65), (9, 200), (20, 77), (1000, 3)])
    func everyRowLandsInOrder(columns: Int, rows: Int) throws {
        let queue = try DatabaseQueue()
        try queue.write { db in
            var writer = try Self.writer(columns: columns, in: db)
            #expect(writer.maximumRows == 1 || writer.maximumRows * columns <= 999)
            #expect(writer.maximumRows >= 1 && writer.maximumRows <= 64)
            for row in 0..<rows {
                try writer.append((0..<columns).map { column in "\(row)-\(column)".databaseValue })
            }
            #expect(writer.pendingRows < writer.maximumRows)
            try writer.flush()
            #expect(writer.pendingRows == 0)
            let stored = try Row.fetchAll(db, sql: "SELECT * FROM t ORDER BY n")
            #expect(stored.count == rows)
            for (row, stored) in stored.enumerated() {
                // Inserted in the order given: the rowid follows it.
                #expect(stored["n"] == Int64(row + 1))
                #expect(stored["v0"] == "\(row)-0")
                #expect(stored[columns] == "\(row)-\(columns - 1)")
            }
        }
    }

    @Test func aKeyGivenTwiceInOneStatementIsUpsertedInTurn() throws {
        let queue = try DatabaseQueue()
        try queue.write { db in
            try db.execute(sql: "CREATE TABLE counts (k TEXT PRIMARY KEY, total INTEGER, last TEXT)")
            var writer = MultiRowStatement(columnCount: 3, in: db) { rows in
                "INSERT INTO counts (k, total, last) VALUES \(rows) ON CONFLICT (k) DO UPDATE SET total = total + excluded.total, last = excluded.last"
            }
            for step in 1...10 {
                try writer.append(["a".databaseValue, step.databaseValue, "step \(step)".databaseValue])
                try writer.appendRow { values in
                    values.append("b".databaseValue)
                    values.append(1.databaseValue)
                    values.append("step \(step)".databaseValue)
                }
            }
            try writer.flush()
            let rows = try Row.fetchAll(db, sql: "SELECT k, total, last FROM counts ORDER BY k")
            #expect(rows.map { $0["total"] as Int } == [55, 10])
            #expect(rows.map { $0["last"] as String } == ["step 10", "step 10"])
        }
    }

    @Test func aRowOfTheWrongSizeIsATypedErrorAndLosesNothing() throws {
        let queue = try DatabaseQueue()
        try queue.write { db in
            var writer = try Self.writer(columns: 2, in: db)
            try writer.append(["a".databaseValue, "b".databaseValue])
            #expect(throws: DatabaseError.self) { try writer.append(["c".databaseValue]) }
            #expect(throws: DatabaseError.self) {
                try writer.appendRow { values in values += ["c".databaseValue, "d".databaseValue, "e".databaseValue] }
            }
            struct Refused: Error {}
            #expect(throws: Refused.self) {
                try writer.appendRow { values in
                    values.append("half".databaseValue)
                    throw Refused()
                }
            }
            #expect(writer.pendingRows == 1)
            try writer.append(["f".databaseValue, "g".databaseValue])
            try writer.flush()
            #expect(try String.fetchAll(db, sql: "SELECT v0 || v1 FROM t ORDER BY n") == ["ab", "fg"])
        }
    }

    @Test func aFailingStatementWritesNoneOfItsRows() throws {
        let queue = try DatabaseQueue()
        try queue.write { db in
            try db.execute(sql: "CREATE TABLE t (v INTEGER CHECK (v >= 0))")
            var writer = MultiRowStatement(columnCount: 1, in: db) { rows in "INSERT INTO t (v) VALUES \(rows)" }
            for value in [1, 2, -3, 4] { try writer.append([value.databaseValue]) }
            #expect(throws: DatabaseError.self) { try writer.flush() }
            // The statement of four rows failed at its third: SQLite undid its first two.
            #expect(try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM t") == 0)
            #expect(writer.pendingRows == 0)
            try writer.append([5.databaseValue])
            try writer.flush()
            #expect(try Int.fetchAll(db, sql: "SELECT v FROM t") == [5])
        }
    }
}

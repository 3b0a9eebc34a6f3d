import Foundation
import SelfDBStore
import Testing

/// The original's flaws, fixed, and every error path a typed error.
@Suite("SQLite connection: transactions, errors, conversions, backup")
struct StoreBehaviourTests {
    func people() throws -> SQLite {
        let db = try SQLite()
        try db.executeScript("create table t (id integer primary key, name text); insert into t values (1, 'a'), (2, 'b'), (3, 'c')")
        return db
    }

    @Test func aRolledBackSavepointIsAlsoReleased() throws {
        let db = try people()
        try db.transaction {
            for attempt in 0..<3 {
                #expect(throws: Err.self) {
                    try db.transaction {
                        try db.execute("insert into t (name) values (?)", "inner \(attempt)")
                        throw Err.testing("no")
                    }
                }
            }
            // Released: no savepoint of that name is left on the stack.
            #expect(throws: SQLiteError.self) { try db.executeScript("RELEASE selfdb_store_1") }
            try db.execute("insert into t (name) values ('outer')")
        }
        #expect(try db.execute("select count(*) from t").one()[0] == 4)
        #expect(!db.isInTransaction)
    }

    /// A transaction the app opened with SQL is asked of SQLite, not counted: `transaction`
    /// inside it is a savepoint, and the app's COMMIT or ROLLBACK decides.
    @Test func aTransactionInsideOneOpenedWithSQLIsASavepoint() throws {
        let db = try people()
        try db.executeScript("BEGIN")
        try db.transaction { try db.execute("insert into t (name) values ('kept?')") }
        #expect(db.isInTransaction, "the app's transaction is still open")
        #expect(throws: Err.self) {
            try db.transaction {
                try db.execute("insert into t (name) values ('undone')")
                throw Err.testing("no")
            }
        }
        #expect(try db.execute("select count(*) from t").one()[0] == 4)
        try db.executeScript("ROLLBACK")
        #expect(try db.execute("select count(*) from t").one()[0] == 3)
        #expect(!db.isInTransaction)
    }

    @Test func nestedCommitsAreDurableOnlyWithTheOuterOne() throws {
        let db = try people()
        #expect(throws: Err.self) {
            try db.transaction {
                try db.transaction { try db.execute("insert into t (name) values ('kept inside')") }
                throw Err.testing("outer fails")
            }
        }
        #expect(try db.execute("select count(*) from t where name = 'kept inside'").one()[0] == 0)
    }

    @Test func anErrorInAForInLoopIsThrownByTheNextCall() throws {
        let db = try people()
        // abs(INT64_MIN) fails while stepping, on the third row.
        let failing = try db.execute("select case when id = 3 then abs(-9223372036854775807 - 1) else id end from t order by id")
        var seen = 0
        for _ in failing { seen += 1 }
        #expect(seen == 2)
        guard case .executionFailed(_, let message, _) = failing.iterationError else {
            Issue.record("no iteration error kept: \(String(describing: failing.iterationError))")
            return
        }
        #expect(message.contains("overflow"))
        #expect {
            try db.execute("select 1")
        } throws: { error in
            guard case SQLiteError.iterationFailed = error else { return false }
            return true
        }
        // Reported once; the connection goes on.
        #expect(try db.execute("select 1").one()[0] == 1)
        // nextRow() and all() throw at once.
        #expect(throws: SQLiteError.self) { try db.execute("select case when id = 3 then abs(-9223372036854775807 - 1) else id end from t order by id").all() }
    }

    @Test func parameterMistakesAreTypedErrors() throws {
        let db = try people()
        #expect(throws: SQLiteError.missingParameter(sql: "select * from t where id = $id and name = $name", name: "$name")) {
            try db.execute("select * from t where id = $id and name = $name", ["id": 1])
        }
        #expect(throws: SQLiteError.unknownParameter(sql: "select * from t where id = :id", name: "nope")) {
            try db.execute("select * from t where id = :id", [":id": 1, "nope": 2])
        }
        #expect(throws: SQLiteError.wrongParameterCount(sql: "select * from t where id = ?", expected: 1, given: 2)) {
            try db.execute("select * from t where id = ?", 1, 2)
        }
        #expect(throws: SQLiteError.parameterStyleMismatch(sql: "select * from t where id = ?")) {
            try db.execute("select * from t where id = ?", ["id": 1])
        }
        // nil binds NULL, by position and by name.
        #expect(try db.execute("select ? is null, $x is null", nil, nil).one()[0] == true)
        #expect(try db.execute("select $x is null", ["x": nil]).one()[0] == true)
    }

    @Test func badSQLClosedConnectionsAndOneRowMistakes() throws {
        let db = try people()
        #expect { try db.execute("selec 1") } throws: { error in
            guard case SQLiteError.prepareFailed(_, let message, _) = error else { return false }
            return message.contains("syntax error")
        }
        #expect(throws: SQLiteError.self) { try db.execute("select 1; select 2") }
        #expect(throws: SQLiteError.noRow(sql: "select * from t where id = 99")) { try db.execute("select * from t where id = 99").one() }
        #expect(throws: SQLiteError.moreThanOneRow(sql: "select * from t")) { try db.execute("select * from t").one() }
        #expect { try db.execute("insert into t (id) values (1)") } throws: { error in
            guard case SQLiteError.executionFailed(_, let message, _) = error else { return false }
            return message.contains("UNIQUE")
        }
        let prepared = try db.prepare("select * from t")
        db.close()
        #expect(throws: SQLiteError.connectionClosed) { try prepared.execute() }
        #expect(throws: SQLiteError.connectionClosed) { try db.execute("select 1") }
        #expect(throws: SQLiteError.self) { try SQLite("/nonexistent-dir/sub/x.sqlite") }
    }

    @Test func conversionsAreExactOrNil() throws {
        let db = try SQLite()
        let row = try db.execute("select 2, 1.5, 'TRUE', cast(x'ff' as blob), 1152921504606846977, null, 3.0, '42', x'6869'").one()
        #expect(row[0] as Bool? == nil)
        #expect(row[1] as Int? == nil)
        #expect(row[2] as Bool? == true)
        #expect(row[3] as String? == nil)
        #expect(row[4] as Double? == nil)
        #expect(row[5] as Int? == nil && row.isNull(5) && !row.isNull(0))
        #expect(row[6] as Int? == 3)
        #expect(row[7] as Int64? == 42 && row[7] as Double? == 42)
        #expect(row[8] as String? == "hi")
        #expect(row[99] as Int? == nil)
        #expect(row.value(at: 1) == .real(1.5))
    }

    @Test func backupReportsProgressRetriesAndAborts() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("store-backup-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let source = try SQLite()
        try source.executeScript("create table big (x blob)")
        try source.transaction {
            for _ in 0..<2_000 { try source.execute("insert into big values (randomblob(1000))") }
        }

        let destinationPath = directory.appendingPathComponent("copy.sqlite").path
        // No busy wait of its own, so the locked case below retries at once.
        let destination = try SQLite(destinationPath, busyTimeout: .zero)
        var calls: [(Int, Int, Int)] = []
        try source.backup(to: destination) { remaining, total, retries in
            calls.append((remaining, total, retries))
            return true
        }
        #expect(calls.count > 1, "a 2 MB database takes several steps of \(SQLite.backupBatchSize) pages")
        #expect(calls.allSatisfy { $0.0 <= $0.1 && $0.2 == 0 })
        #expect(try destination.execute("select count(*) from big").one()[0] == 2_000)

        // Aborted by the callback.
        #expect(throws: SQLiteError.backupAborted) {
            try source.backup(to: destination) { _, _, _ in false }
        }

        // The destination locked by another connection: retries are counted, then given up.
        let locker = try SQLite(destinationPath, busyTimeout: .zero)
        try locker.executeScript("BEGIN EXCLUSIVE")
        var maxRetries = 0
        #expect(throws: SQLiteError.backupAborted) {
            try source.backup(to: destination) { _, _, retries in
                maxRetries = max(maxRetries, retries)
                return retries < 3
            }
        }
        #expect(maxRetries == 3)
        try locker.executeScript("ROLLBACK")
    }
}

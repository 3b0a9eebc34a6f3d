import GRDB

extension SynchroClient {
    /// The rows of a query.
    public func query(_ sql: String, params: [(any DatabaseValueConvertible)?] = []) throws -> [Row] {
        try databaseOperation {
            try database.read { db in try Row.fetchAll(db, sql: sql, arguments: StatementArguments(params)) }
        }
    }

    /// The first row of a query, or nil.
    public func queryOne(_ sql: String, params: [(any DatabaseValueConvertible)?] = []) throws -> Row? {
        try databaseOperation {
            try database.read { db in try Row.fetchOne(db, sql: sql, arguments: StatementArguments(params)) }
        }
    }

    /// Runs one statement in its own transaction. Writes to synced tables are recorded and
    /// pushed after `pushDebounce`.
    @discardableResult
    public func execute(_ sql: String, params: [(any DatabaseValueConvertible)?] = []) throws -> ExecResult {
        let affected = try trackedWrite { db -> Int in
            try db.execute(sql: sql, arguments: StatementArguments(params))
            return db.changesCount
        }
        return ExecResult(rowsAffected: affected)
    }

    /// Runs the statements in one transaction: all or none. Returns the rows they affected
    /// in all.
    @discardableResult
    public func executeBatch(_ statements: [SQLStatement]) throws -> Int {
        try trackedWrite { db -> Int in
            var total = 0
            for statement in statements {
                try db.execute(sql: statement.sql, arguments: StatementArguments(statement.params))
                total += db.changesCount
            }
            return total
        }
    }

    /// Runs `block` in a write transaction (committed when it returns, rolled back when it
    /// throws), with GRDB's `Database` to read and write through.
    @discardableResult
    public func writeTransaction<T>(_ block: (Database) throws -> T) throws -> T {
        try trackedWrite(block)
    }

    /// Runs an app's writes in one transaction, then has them pushed after `pushDebounce`.
    /// A change log grown long with no sync to fold it is folded in the same transaction.
    func trackedWrite<T>(_ block: (Database) throws -> T) throws -> T {
        let result = try databaseOperation {
            try database.write { db in
                let result = try block(db)
                try ChangeLog.foldIfLong(in: db)
                return result
            }
        }
        engine.localWriteHappened()
        return result
    }

    /// Runs `block` on a consistent snapshot of the database.
    public func readTransaction<T>(_ block: (Database) throws -> T) throws -> T {
        try databaseOperation { try database.read(block) }
    }
}

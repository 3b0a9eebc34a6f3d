import GRDB

extension SynchroClient {
    /// Prepares `sql` once and runs `block` with it on a consistent snapshot of the database,
    /// read-only: bind and fetch as often as needed (`try Row.fetchAll(statement, arguments: […])`).
    /// The statement belongs to the block's connection: do not keep it after the block returns.
    public func withPreparedStatement<T>(_ sql: String, _ block: (Statement) throws -> T) throws -> T {
        try databaseOperation {
            try database.read { db in try block(try db.makeStatement(sql: sql)) }
        }
    }

    /// Prepares `sql` once and runs `block` with it in one write transaction (committed when
    /// it returns, rolled back when it throws): `try statement.execute(arguments: […])` as often
    /// as needed. Writes to synced tables are recorded and pushed after `pushDebounce`, as with
    /// ``execute(_:params:)``. Do not keep the statement after the block returns.
    public func withWritePreparedStatement<T>(_ sql: String, _ block: (Statement) throws -> T) throws -> T {
        try trackedWrite { db in try block(try db.makeStatement(sql: sql)) }
    }
}

import GRDB

/// One statement of ``SynchroClient/executeBatch(_:)``.
public struct SQLStatement: Sendable {
    /// The SQL text, with `?` placeholders.
    public var sql: String
    /// The values of the placeholders, in order.
    public var params: [(any DatabaseValueConvertible & Sendable)?]

    /// Creates a statement.
    public init(sql: String, params: [(any DatabaseValueConvertible & Sendable)?] = []) {
        self.sql = sql
        self.params = params
    }
}

/// What a write reports.
public struct ExecResult: Sendable, Equatable {
    /// Rows inserted, updated or deleted by the statement.
    public var rowsAffected: Int

    /// Creates a result.
    public init(rowsAffected: Int) {
        self.rowsAffected = rowsAffected
    }
}

import Foundation
import GRDBSQLite
import SelfDBStore

/// Prepared statements kept for the life of the connection, driven through the C API: the
/// merge and the change feed run a few statements per change, and re-preparing or wrapping
/// rows in objects would dominate their cost.
final class StatementCache {
    private let connection: SQLite
    private var statements: [String: OpaquePointer] = [:]

    init(connection: SQLite) {
        self.connection = connection
    }

    deinit {
        for statement in statements.values { sqlite3_finalize(statement) }
    }

    /// Forgets every statement (after a schema change; SQLite would re-prepare them anyway).
    func clear() {
        for statement in statements.values { sqlite3_finalize(statement) }
        statements.removeAll()
    }

    /// The statement for `sql`, reset, with `values` bound.
    func statement(_ sql: String, _ values: [SQLiteValue]) throws -> OpaquePointer {
        let statement: OpaquePointer
        if let cached = statements[sql] {
            statement = cached
            sqlite3_reset(statement)
        } else {
            var prepared: OpaquePointer?
            let code = sqlite3_prepare_v3(connection.rawHandle, sql, -1, UInt32(SQLITE_PREPARE_PERSISTENT), &prepared, nil)
            guard code == SQLITE_OK, let prepared else {
                throw CRDTError.prepareFailed(sql, message, code)
            }
            statements[sql] = prepared
            statement = prepared
        }
        for (index, value) in values.enumerated() {
            value.bind(to: statement, at: Int32(index + 1))
        }
        return statement
    }

    /// The statement for `sql`, reset, for the caller to bind and step (see `step`).
    func prepared(_ sql: String) throws -> OpaquePointer {
        try statement(sql, [])
    }

    /// Steps a statement that returns no rows (or whose rows are not needed) and resets it.
    func step(_ statement: OpaquePointer, _ sql: @autoclosure () -> String) throws {
        let code = sqlite3_step(statement)
        sqlite3_reset(statement)
        guard code == SQLITE_DONE || code == SQLITE_ROW else { throw failure(sql(), code) }
    }

    /// The error for a failed step of `sql`, with SQLite's message.
    func failure(_ sql: String, _ code: Int32) -> CRDTError {
        CRDTError(SQLiteError.executionFailed(sql: sql, message: message, code: code))
    }

    /// Runs a statement that returns no rows.
    func run(_ sql: String, _ values: [SQLiteValue] = []) throws {
        let statement = try statement(sql, values)
        let code = sqlite3_step(statement)
        sqlite3_reset(statement)
        guard code == SQLITE_DONE || code == SQLITE_ROW else {
            throw CRDTError(SQLiteError.executionFailed(sql: sql, message: message, code: code))
        }
    }

    /// Runs a query and hands each row to `body`.
    func query(_ sql: String, _ values: [SQLiteValue] = [], _ body: (OpaquePointer) throws -> Void) throws {
        let statement = try statement(sql, values)
        defer { sqlite3_reset(statement) }
        while true {
            let code = sqlite3_step(statement)
            if code == SQLITE_DONE { return }
            guard code == SQLITE_ROW else {
                throw CRDTError(SQLiteError.executionFailed(sql: sql, message: message, code: code))
            }
            try body(statement)
        }
    }

    /// The first column of the first row, if any.
    func scalar(_ sql: String, _ values: [SQLiteValue] = []) throws -> SQLiteValue? {
        var result: SQLiteValue?
        try query(sql, values) { row in
            if result == nil { result = SQLiteValue(column: 0, of: row) }
        }
        return result
    }

    private var message: String {
        connection.rawHandle.map { String(cString: sqlite3_errmsg($0)) } ?? "connection closed"
    }
}

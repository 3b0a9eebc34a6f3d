import Foundation
import GRDBSQLite

/// A prepared statement: execute it with arguments, then read its rows.
///
/// `execute` binds the arguments and runs the statement to its first row, so an INSERT or
/// UPDATE has happened when it returns and the first error is thrown there. Then read rows
/// with `nextRow()` (throws), `all()`, `one()`, or `for row in statement`.
///
/// **Errors in `for in`.** `IteratorProtocol.next()` cannot throw, so a loop that meets an
/// error (rare: a lock or a concurrent schema change while stepping) ends early, the error is
/// kept in ``iterationError``, and the next call on the connection throws it as
/// ``SQLiteError/iterationFailed(sql:message:code:)``. It is never silently dropped; use
/// `nextRow()` or `all()` to get it at once.
public final class Statement: Sequence {
    /// The statement's SQL.
    public let sql: String
    /// The error that ended the last `for in` loop, if one did.
    public private(set) var iterationError: SQLiteError?

    let connection: SQLite
    private(set) var handle: OpaquePointer?
    private lazy var columns = ColumnIndex(names: (0..<sqlite3_column_count(handle)).map { String(cString: sqlite3_column_name(handle, $0)) })
    /// The row `execute` stepped to and nobody has read yet.
    private var pendingRow = false
    private var finished = true
    private lazy var parameterNames: [String?] = (0..<sqlite3_bind_parameter_count(handle)).map { index in
        sqlite3_bind_parameter_name(handle, index + 1).map { String(cString: $0) }
    }

    init(connection: SQLite, sql: String, handle: OpaquePointer?) {
        self.connection = connection
        self.sql = sql
        self.handle = handle
    }

    deinit {
        sqlite3_finalize(handle)
    }

    /// The number of parameters (`?`, `?NNN`, `:name`, `@name`, `$name`).
    public var parameterCount: Int { storedParameterCount }
    private lazy var storedParameterCount = Int(sqlite3_bind_parameter_count(handle))

    /// The result column names.
    public var columnNames: [String] { columns.names }

    /// Runs the statement again with positional arguments (`nil` binds NULL).
    @discardableResult
    public func execute(_ arguments: (any SQLiteBindable)?...) throws -> Statement {
        try reset()
        guard arguments.count == parameterCount else {
            throw SQLiteError.wrongParameterCount(sql: sql, expected: parameterCount, given: arguments.count)
        }
        for (index, argument) in arguments.enumerated() {
            try check((argument?.sqliteValue ?? .null).bind(to: handle, at: Int32(index + 1)))
        }
        try stepFirst()
        return self
    }

    /// Runs the statement again with positional arguments.
    @discardableResult
    public func execute(arguments: [SQLiteValue]) throws -> Statement {
        try reset()
        guard arguments.count == parameterCount else {
            throw SQLiteError.wrongParameterCount(sql: sql, expected: parameterCount, given: arguments.count)
        }
        for (index, value) in arguments.enumerated() {
            try check(value.bind(to: handle, at: Int32(index + 1)))
        }
        try stepFirst()
        return self
    }

    /// Runs the statement again with named arguments. Keys may include the prefix (`$id`,
    /// `:id`, `@id`; slightly faster) or not (`id`). Every parameter needs a value and every
    /// key must name a parameter.
    @discardableResult
    public func execute(_ arguments: [String: (any SQLiteBindable)?]) throws -> Statement {
        try reset()
        var remaining = arguments.mapValues { $0?.sqliteValue ?? .null }
        for (offset, name) in parameterNames.enumerated() {
            guard let name else { throw SQLiteError.parameterStyleMismatch(sql: sql) }
            let bare = String(name.dropFirst())
            guard let value = remaining.removeValue(forKey: name) ?? remaining.removeValue(forKey: bare) else {
                throw SQLiteError.missingParameter(sql: sql, name: name)
            }
            try check(value.bind(to: handle, at: Int32(offset + 1)))
        }
        if let extra = remaining.keys.sorted().first {
            throw SQLiteError.unknownParameter(sql: sql, name: extra)
        }
        try stepFirst()
        return self
    }

    /// The next row, or nil when there are no more.
    public func nextRow() throws -> Row? {
        try advance() ? makeRow() : nil
    }

    /// Moves to the next row without reading it; false when there are no more.
    func advance() throws -> Bool {
        try connection.checkOpen()
        if pendingRow {
            pendingRow = false
            return true
        }
        guard !finished else { return false }
        return try step()
    }

    /// All remaining rows.
    public func all() throws -> [Row] {
        var rows: [Row] = []
        while let row = try nextRow() { rows.append(row) }
        return rows
    }

    /// The only row; throws when there is none or more than one.
    public func one() throws -> Row {
        guard let row = try nextRow() else { throw SQLiteError.noRow(sql: sql) }
        guard try nextRow() == nil else { throw SQLiteError.moreThanOneRow(sql: sql) }
        return row
    }

    /// Rows for `for in`; see the type's documentation for how errors are reported.
    public func makeIterator() -> AnyIterator<Row> {
        AnyIterator { [self] in
            do {
                return try nextRow()
            } catch let error as SQLiteError {
                iterationError = error
                connection.deferError(error, sql: sql)
                return nil
            } catch {
                return nil
            }
        }
    }

    // MARK: - Stepping

    private func reset() throws {
        try connection.checkOpen()
        iterationError = nil
        pendingRow = false
        finished = false
        // No sqlite3_clear_bindings: every execute binds every parameter (counts are checked).
        sqlite3_reset(handle)
    }

    private func stepFirst() throws {
        pendingRow = try step()
    }

    /// One `sqlite3_step`: true on a row, false when done.
    private func step() throws -> Bool {
        switch sqlite3_step(handle) {
        case SQLITE_ROW:
            return true
        case SQLITE_DONE:
            finished = true
            return false
        case let code:
            finished = true
            let message = connection.lastErrorMessage
            // Reset so the statement can run again and SQLite does not keep it busy.
            sqlite3_reset(handle)
            throw SQLiteError.executionFailed(sql: sql, message: message, code: code)
        }
    }

    private func makeRow() -> Row {
        let count = sqlite3_column_count(handle)
        var values: [SQLiteValue] = []
        values.reserveCapacity(Int(count))
        for index in 0..<count {
            values.append(SQLiteValue(column: index, of: handle))
        }
        return Row(values: values, columns: columns)
    }

    private func check(_ code: Int32) throws {
        guard code == SQLITE_OK else {
            throw SQLiteError.executionFailed(sql: sql, message: connection.lastErrorMessage, code: code)
        }
    }
}

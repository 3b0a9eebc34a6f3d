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
    @exclusivity(unchecked) public private(set) var iterationError: SQLiteError?

    @usableFromInline let connection: SQLite
    @usableFromInline @exclusivity(unchecked) private(set) var handle: OpaquePointer?
    @exclusivity(unchecked) private var columnIndex: ColumnIndex?
    /// The result columns, read once (every row shares them).
    private var columns: ColumnIndex {
        if let columnIndex { return columnIndex }
        let index = ColumnIndex(names: (0..<sqlite3_column_count(handle)).map { String(cString: sqlite3_column_name(handle, $0)) })
        columnIndex = index
        return index
    }
    // The state read on every step is exempt from Swift's dynamic exclusivity checks: a
    // statement is used by one thread at a time (not `Sendable`) and none of these accesses
    // overlap, while the checks (a thread-local access set) were a sixth of a bulk read.
    /// The values of the last row made, whose storage the next row reuses.
    @exclusivity(unchecked) private var rowBuffer: [SQLiteValue] = []
    /// The row `execute` stepped to and nobody has read yet.
    @usableFromInline @exclusivity(unchecked) var pendingRow = false
    @usableFromInline @exclusivity(unchecked) var finished = true
    private lazy var parameterNames: [String?] = (0..<sqlite3_bind_parameter_count(handle)).map { index in
        sqlite3_bind_parameter_name(handle, index + 1).map { String(cString: $0) }
    }

    init(connection: SQLite, sql: String, handle: OpaquePointer?) {
        self.connection = connection
        self.sql = sql
        self.handle = handle
        parameterCount = Int(sqlite3_bind_parameter_count(handle))
    }

    deinit {
        sqlite3_finalize(handle)
    }

    /// The number of parameters (`?`, `?NNN`, `:name`, `@name`, `$name`).
    public let parameterCount: Int

    /// The result column names.
    public var columnNames: [String] { columns.names }

    /// Runs the statement again with positional arguments (`nil` binds NULL).
    @discardableResult
    public func execute(_ arguments: (any SQLiteBindable)?...) throws -> Statement {
        try reset()
        guard arguments.count == parameterCount else {
            throw SQLiteError.wrongParameterCount(sql: sql, expected: parameterCount, given: arguments.count)
        }
        // Read in place: a `for in` over the array copied each existential out and destroyed it
        // again, through value witnesses, a fifth of the store's cost over raw sqlite3.
        try arguments.withUnsafeBufferPointer { arguments in
            for index in arguments.indices {
                let position = Int32(index + 1)
                let code = arguments[index]?.sqliteValue.bind(to: handle, at: position) ?? sqlite3_bind_null(handle, position)
                try check(code)
            }
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

    /// Moves to the next row without reading it; false when there are no more. Inlined into
    /// read loops: a row is one `sqlite3_step` and a few flag tests.
    @inlinable func advance() throws -> Bool {
        try connection.checkOpen()
        if pendingRow {
            pendingRow = false
            return true
        }
        guard !finished else { return false }
        let code = sqlite3_step(handle)
        return code == SQLITE_ROW ? true : try stepped(code)
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
        try stepped(sqlite3_step(handle))
    }

    /// What a step's result code means: true on a row, false when done; an error throws.
    @usableFromInline func stepped(_ code: Int32) throws -> Bool {
        switch code {
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
        let count = Int(sqlite3_column_count(handle))
        // The previous row's storage is overwritten in place when its `Row` is gone (the
        // common loop), so a row costs no allocation of its own; a row still held keeps its
        // values (the buffer is copied first: copy on write).
        if rowBuffer.count == count {
            let handle = handle
            rowBuffer.withUnsafeMutableBufferPointer { values in
                for index in 0..<count {
                    values[index] = SQLiteValue(column: Int32(index), of: handle)
                }
            }
        } else {
            rowBuffer = (0..<count).map { SQLiteValue(column: Int32($0), of: handle) }
        }
        return Row(values: rowBuffer, columns: columns)
    }

    private func check(_ code: Int32) throws {
        guard code == SQLITE_OK else {
            throw SQLiteError.executionFailed(sql: sql, message: connection.lastErrorMessage, code: code)
        }
    }
}

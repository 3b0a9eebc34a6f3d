import Foundation

/// Everything that can go wrong talking to SQLite, with SQLite's own message and result code
/// where there is one.
public enum SQLiteError: Error, Hashable, Sendable, CustomStringConvertible, LocalizedError {
    /// The database file could not be opened.
    case openFailed(path: String, message: String, code: Int32)
    /// SQLite rejected the statement text.
    case prepareFailed(sql: String, message: String, code: Int32)
    /// Running a statement failed (constraint, busy, I/O...).
    case executionFailed(sql: String, message: String, code: Int32)
    /// The statement has `expected` parameters but `given` values were passed.
    case wrongParameterCount(sql: String, expected: Int, given: Int)
    /// A named parameter of the statement has no value in the dictionary.
    case missingParameter(sql: String, name: String)
    /// A dictionary key names no parameter of the statement.
    case unknownParameter(sql: String, name: String)
    /// Positional values passed to a statement that uses named parameters, or the reverse.
    case parameterStyleMismatch(sql: String)
    /// `one()` found no row.
    case noRow(sql: String)
    /// `one()` found more than one row.
    case moreThanOneRow(sql: String)
    /// The connection was closed.
    case connectionClosed
    /// A `for in` loop over a statement stopped on this error; reported by the next call on
    /// the connection, since `IteratorProtocol` cannot throw.
    case iterationFailed(sql: String, message: String, code: Int32)
    /// The backup stopped: SQLite's error, or the progress callback returned false.
    case backupFailed(message: String, code: Int32)
    /// The progress callback asked to stop.
    case backupAborted
    /// `executeScript` takes no arguments; use `execute` for parameters.
    case invalidArgument(String)

    /// What went wrong, with SQLite's message and the SQL where there is one.
    public var description: String {
        switch self {
        case .openFailed(let path, let message, let code): "cannot open SQLite database at \(path): \(message) (code \(code))"
        case .prepareFailed(let sql, let message, let code): "cannot prepare SQL: \(message) (code \(code)) in: \(Self.shorten(sql))"
        case .executionFailed(let sql, let message, let code): "SQL failed: \(message) (code \(code)) in: \(Self.shorten(sql))"
        case .wrongParameterCount(let sql, let expected, let given): "the statement takes \(expected) parameter(s) but \(given) value(s) were given: \(Self.shorten(sql))"
        case .missingParameter(let sql, let name): "no value for parameter \(name) of: \(Self.shorten(sql))"
        case .unknownParameter(let sql, let name): "\(name) is not a parameter of: \(Self.shorten(sql))"
        case .parameterStyleMismatch(let sql): "positional values for named parameters (or the reverse) in: \(Self.shorten(sql))"
        case .noRow(let sql): "expected exactly one row, got none: \(Self.shorten(sql))"
        case .moreThanOneRow(let sql): "expected exactly one row, got more: \(Self.shorten(sql))"
        case .connectionClosed: "the SQLite connection is closed"
        case .iterationFailed(let sql, let message, let code): "an earlier for-in loop stopped on an error: \(message) (code \(code)) in: \(Self.shorten(sql))"
        case .backupFailed(let message, let code): "backup failed: \(message) (code \(code))"
        case .backupAborted: "backup aborted by its progress callback"
        case .invalidArgument(let text): text
        }
    }

    /// The ``description``, for Foundation's error reporting.
    public var errorDescription: String? { description }

    private static func shorten(_ sql: String) -> String {
        let line = sql.split(whereSeparator: \.isNewline).map { $0.trimmingCharacters(in: .whitespaces) }.joined(separator: " ")
        return line.count > 200 ? String(line.prefix(200)) + "…" : line
    }
}

import Foundation

/// Everything CRDT-SQLite reports, with readable descriptions (`localizedDescription`).
public enum CRDTError: Error, Hashable, Sendable, LocalizedError, CustomStringConvertible {
    /// The database could not be opened: path and SQLite result code.
    case databaseOpenFailed(String, Int32)
    /// A statement failed: SQL, SQLite's message, result code.
    case executionFailed(String, String, Int32)
    /// A statement could not be prepared: SQL, SQLite's message, result code.
    case prepareFailed(String, String, Int32)
    /// A value that must not be NULL was NULL (what it was).
    case unexpectedNullValue(String)
    /// A transaction (or merge savepoint) could not be opened, committed or rolled back.
    case transactionFailed(String)
    /// The table's primary key does not fit the record id type (INTEGER for `Int64`, BLOB for
    /// `UUID`), or a stored id is not of that type.
    case invalidRecordIDType
    /// `enableCRDT(for:)` on a table that does not exist.
    case tableNotFound(String)
    /// The table has no primary key, or a composite one.
    case unsupportedPrimaryKey(table: String, reason: String)
    /// DROP/RENAME of a tracked table or column: replicas would silently diverge.
    case unsupportedSchemaChange(String)
    /// A change names an untracked table or unknown column, or carries impossible versions.
    case invalidChange(String)
    /// The clock would pass the largest version SQLite can store (`Int64.max`).
    case clockOverflow

    /// What went wrong, for logs and alerts.
    public var description: String {
        switch self {
        case .databaseOpenFailed(let path, let code): "cannot open the CRDT database at \(path) (SQLite code \(code))"
        case .executionFailed(let sql, let message, let code): "SQL failed: \(message) (SQLite code \(code)) in: \(sql)"
        case .prepareFailed(let sql, let message, let code): "cannot prepare SQL: \(message) (SQLite code \(code)) in: \(sql)"
        case .unexpectedNullValue(let what): "unexpected NULL: \(what)"
        case .transactionFailed(let reason): "transaction failed: \(reason)"
        case .invalidRecordIDType: "the primary key does not match the record id type (INTEGER for Int64, BLOB for UUID)"
        case .tableNotFound(let table): "no table named \(table)"
        case .unsupportedPrimaryKey(let table, let reason): "\(table) cannot be tracked: \(reason)"
        case .unsupportedSchemaChange(let what): "refused schema change: \(what); tracked tables support ADD COLUMN only"
        case .invalidChange(let reason): "invalid change: \(reason)"
        case .clockOverflow: "the CRDT clock would overflow (versions are limited to Int64.max)"
        }
    }

    /// The ``description``, for Foundation's error reporting.
    public var errorDescription: String? { description }

    /// Maps a store error to the note's cases.
    init(_ error: any Error) {
        switch error {
        case let error as CRDTError: self = error
        case let error as TrackingContext.Failure:
            self = error.message.contains("crdt_clock_overflow") ? .clockOverflow : .executionFailed("", error.message, error.code)
        case SQLiteError.openFailed(let path, _, let code): self = .databaseOpenFailed(path, code)
        case SQLiteError.prepareFailed(let sql, let message, let code): self = .prepareFailed(sql, message, code)
        case SQLiteError.executionFailed(let sql, let message, let code), SQLiteError.iterationFailed(let sql, let message, let code):
            self = message.contains("crdt_clock_overflow") ? .clockOverflow : .executionFailed(sql, message, code)
        default: self = .executionFailed("", String(describing: error), 1)
        }
    }
}

import Foundation
import GRDBSQLite

/// A connection to an SQLite database: the zero-fuss API of SQLiteZero on the system SQLite.
///
/// ```swift
/// let db = try SQLite("app.sqlite")          // ":memory:" when omitted
/// try db.executeScript("create table person (id integer primary key, name text)")
/// try db.execute("insert into person (name) values (?)", "Noa")
/// for row in try db.execute("select * from person") { print(row["name"] as String?) }
/// ```
///
/// **Threading.** A connection and its statements are not `Sendable`: use them from one task
/// or thread at a time (own them in an actor, or behind a lock, to share them). Swift's
/// concurrency checking enforces that, so SQLite is opened without its own per-connection
/// mutex (`SQLITE_OPEN_NOMUTEX`, as GRDB does): in serialized mode every `sqlite3_column_*`
/// call locks and unlocks it, a fifth of the time of a bulk read.
public final class SQLite {
    /// How many pages `backup(to:progress:)` copies per step (and between progress calls).
    public static let backupBatchSize: Int32 = 100

    /// The path the connection was opened with.
    public let path: String

    // Read on every step of every statement; exempt from dynamic exclusivity checks for the
    // reason `Statement` gives.
    @usableFromInline @exclusivity(unchecked) private(set) var handle: OpaquePointer?
    /// An error a `for in` loop could not throw, waiting to be thrown by the next call.
    @usableFromInline @exclusivity(unchecked) var deferredError: SQLiteError?
    var transactionDepth = 0

    /// Opens (creating if needed) the database at `path`; `":memory:"` for a private
    /// in-memory database.
    ///
    /// - Parameters:
    ///   - path: the database file, or `":memory:"`.
    ///   - busyTimeout: how long a statement waits for another connection's lock.
    public init(_ path: String = ":memory:", busyTimeout: Duration = .seconds(5)) throws {
        self.path = path
        var handle: OpaquePointer?
        let flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX | SQLITE_OPEN_URI
        let code = sqlite3_open_v2(path, &handle, flags, nil)
        guard code == SQLITE_OK, let handle else {
            let message = handle.map { String(cString: sqlite3_errmsg($0)) } ?? "out of memory"
            sqlite3_close_v2(handle)
            throw SQLiteError.openFailed(path: path, message: message, code: code)
        }
        self.handle = handle
        sqlite3_extended_result_codes(handle, 1)
        let milliseconds = busyTimeout.components.seconds * 1_000 + busyTimeout.components.attoseconds / 1_000_000_000_000_000
        sqlite3_busy_timeout(handle, Int32(clamping: milliseconds))
        // What libraries registered for every connection (`setConnectionSetup`); the handle is
        // closed by deinit if one fails.
        for (key, setup) in Self.connectionSetups.all {
            let code = setup(handle)
            guard code == SQLITE_OK else {
                throw SQLiteError.openFailed(path: path, message: "connection setup '\(key)' failed: \(String(cString: sqlite3_errstr(code)))", code: code)
            }
        }
    }

    deinit {
        // v2 defers the close until every statement is finalized.
        sqlite3_close_v2(handle)
    }

    /// Closes the connection; later calls throw ``SQLiteError/connectionClosed``. Statements
    /// still alive are finalized when they are released.
    public func close() {
        sqlite3_close_v2(handle)
        handle = nil
    }

    /// Whether `close()` was called.
    public var isClosed: Bool { handle == nil }

    /// Runs one or more statements separated by `;`. Scripts take no arguments.
    public func executeScript(_ sql: String) throws {
        try checkOpen()
        var message: UnsafeMutablePointer<CChar>?
        let code = sqlite3_exec(handle, sql, nil, nil, &message)
        defer { sqlite3_free(message) }
        guard code == SQLITE_OK else {
            throw SQLiteError.executionFailed(sql: sql, message: message.map { String(cString: $0) } ?? lastErrorMessage, code: code)
        }
    }

    /// Prepares and runs a one-off statement with positional arguments (`nil` binds NULL);
    /// read its rows from the result.
    @discardableResult
    public func execute(_ sql: String, _ arguments: (any SQLiteBindable)?...) throws -> Statement {
        try prepare(sql).execute(arguments: arguments.map { $0?.sqliteValue ?? .null })
    }

    /// Prepares and runs a one-off statement with named arguments (`$id`, `:id`, `@id`; the
    /// prefix in the keys is optional).
    @discardableResult
    public func execute(_ sql: String, _ arguments: [String: (any SQLiteBindable)?]) throws -> Statement {
        try prepare(sql).execute(arguments)
    }

    /// Prepares a statement to run repeatedly with `execute(...)`. It is not run yet.
    public func prepare(_ sql: String) throws -> Statement {
        try checkOpen()
        var statement: OpaquePointer?
        var tail: UnsafePointer<CChar>?
        let code = sql.withCString { text in
            let code = sqlite3_prepare_v2(handle, text, -1, &statement, &tail)
            // More than one statement in the string: the rest would be silently ignored.
            if code == SQLITE_OK, let tail, tail.pointee != 0, String(cString: tail).contains(where: { !$0.isWhitespace && $0 != ";" }) {
                sqlite3_finalize(statement)
                statement = nil
                return SQLITE_MISUSE
            }
            return code
        }
        guard code == SQLITE_OK else {
            let message =
                code == SQLITE_MISUSE && statement == nil && sqlite3_errcode(handle) == SQLITE_OK
                ? "more than one statement; use executeScript" : lastErrorMessage
            throw SQLiteError.prepareFailed(sql: sql, message: message, code: code)
        }
        return Statement(connection: self, sql: sql, handle: statement)
    }

    /// The rowid of the last successful INSERT on this connection.
    public var lastInsertRowID: Int64 { sqlite3_last_insert_rowid(handle) }

    /// Rows changed by the last INSERT, UPDATE or DELETE.
    public var changes: Int { Int(sqlite3_changes(handle)) }

    /// The raw `sqlite3*` handle, for the C API (nil once closed).
    public var rawHandle: OpaquePointer? { handle }

    // MARK: - Internal

    var lastErrorMessage: String {
        handle.map { String(cString: sqlite3_errmsg($0)) } ?? "connection closed"
    }

    /// Throws if the connection is closed or a `for in` loop left an error to report.
    @inlinable func checkOpen() throws {
        guard handle != nil else { throw SQLiteError.connectionClosed }
        if deferredError != nil { try throwDeferredError() }
    }

    @usableFromInline func throwDeferredError() throws {
        if let error = deferredError {
            deferredError = nil
            throw error
        }
    }

    func deferError(_ error: SQLiteError, sql: String) {
        switch error {
        case .executionFailed(_, let message, let code):
            deferredError = .iterationFailed(sql: sql, message: message, code: code)
        default:
            deferredError = error
        }
    }
}

import Foundation
import GRDBSQLite

/// The current row of a statement, read in place: only what is asked for is copied out of
/// SQLite's buffers. Valid only inside the closure of ``Statement/forEachRow(_:)`` (SQLite
/// reuses the buffers at the next step); copy what must outlive it.
///
/// For bulk reads, where making a ``Row`` (a value array) per row costs more than the query.
public struct RowReader {
    let handle: OpaquePointer?

    /// The number of result columns.
    public var columnCount: Int { Int(sqlite3_column_count(handle)) }

    /// Whether column `index` is NULL.
    public func isNull(_ index: Int) -> Bool {
        sqlite3_column_type(handle, Int32(index)) == SQLITE_NULL
    }

    /// Column `index` as a stored value (a copy).
    public func value(_ index: Int) -> SQLiteValue {
        SQLiteValue(column: Int32(index), of: handle)
    }

    /// Column `index` as `T`, with the conversions of ``Row``'s subscript; nil when NULL or
    /// not convertible exactly.
    public func get<T: SQLiteConvertible>(_ index: Int, as type: T.Type = T.self) -> T? {
        T(sqliteValue: value(index))
    }

    /// The integer stored in column `index`; nil when it holds anything else (use `get` for
    /// conversions).
    public func int64(_ index: Int) -> Int64? {
        sqlite3_column_type(handle, Int32(index)) == SQLITE_INTEGER ? sqlite3_column_int64(handle, Int32(index)) : nil
    }

    /// The real stored in column `index`; nil when it holds anything else (use `get` for
    /// conversions).
    public func double(_ index: Int) -> Double? {
        sqlite3_column_type(handle, Int32(index)) == SQLITE_FLOAT ? sqlite3_column_double(handle, Int32(index)) : nil
    }

    /// Text (or a blob's bytes as UTF-8) of column `index`; nil when NULL or a number.
    public func string(_ index: Int) -> String? {
        switch sqlite3_column_type(handle, Int32(index)) {
        case SQLITE_TEXT, SQLITE_BLOB: withBytes(index) { String(decoding: $0, as: UTF8.self) }
        default: nil
        }
    }

    /// Calls `body` with the bytes of a text or blob column, in place (empty for NULL and
    /// numbers). The buffer is valid only during the call.
    public func withBytes<T>(_ index: Int, _ body: (UnsafeRawBufferPointer) throws -> T) rethrows -> T {
        let column = Int32(index)
        switch sqlite3_column_type(handle, column) {
        case SQLITE_TEXT:
            // Asked for before the length, as SQLite's documentation requires.
            let start = sqlite3_column_text(handle, column)
            return try body(UnsafeRawBufferPointer(start: start, count: Int(sqlite3_column_bytes(handle, column))))
        case SQLITE_BLOB:
            let start = sqlite3_column_blob(handle, column)
            return try body(UnsafeRawBufferPointer(start: start, count: Int(sqlite3_column_bytes(handle, column))))
        default:
            return try body(UnsafeRawBufferPointer(start: nil, count: 0))
        }
    }
}

extension Statement {
    /// Calls `body` with each remaining row, read in place (see ``RowReader``). An error
    /// while stepping, or thrown by `body`, ends the loop and is thrown.
    ///
    /// ```swift
    /// var total = 0
    /// try db.prepare("SELECT name, photo FROM people").execute().forEachRow { row in
    ///     total += row.withBytes(1) { $0.count }
    /// }
    /// ```
    public func forEachRow(_ body: (RowReader) throws -> Void) throws {
        while try advance() {
            try body(RowReader(handle: handle))
        }
    }
}

import Foundation
import GRDBSQLite

/// The current row of a statement, read in place: only what is asked for is copied out of
/// SQLite's buffers. Valid only inside the closure of ``Statement/forEachRow(_:)`` (SQLite
/// reuses the buffers at the next step); copy what must outlive it.
///
/// For bulk reads, where making a ``Row`` (a value array) per row costs more than the query.
///
/// Its accessors are `@inlinable` so that a read loop in the app's module compiles to direct
/// `sqlite3_column_*` calls, with no call into this module per value.
public struct RowReader {
    @usableFromInline let handle: OpaquePointer?

    @usableFromInline init(handle: OpaquePointer?) {
        self.handle = handle
    }

    /// The number of result columns.
    @inlinable public var columnCount: Int { Int(sqlite3_column_count(handle)) }

    /// Whether column `index` is NULL.
    @inlinable public func isNull(_ index: Int) -> Bool {
        sqlite3_value_type(column(index)) == SQLITE_NULL
    }

    /// Column `index` as a stored value (a copy).
    @inlinable public func value(_ index: Int) -> SQLiteValue {
        SQLiteValue(column: Int32(index), of: handle)
    }

    /// Column `index` as `T`, with the conversions of ``Row``'s subscript; nil when NULL or
    /// not convertible exactly.
    @inlinable public func get<T: SQLiteConvertible>(_ index: Int, as type: T.Type = T.self) -> T? {
        T(sqliteValue: value(index))
    }

    /// The integer stored in column `index`; nil when it holds anything else (use `get` for
    /// conversions).
    @inlinable public func int64(_ index: Int) -> Int64? {
        let value = column(index)
        return sqlite3_value_type(value) == SQLITE_INTEGER ? sqlite3_value_int64(value) : nil
    }

    /// The real stored in column `index`; nil when it holds anything else (use `get` for
    /// conversions).
    @inlinable public func double(_ index: Int) -> Double? {
        let value = column(index)
        return sqlite3_value_type(value) == SQLITE_FLOAT ? sqlite3_value_double(value) : nil
    }

    /// Text (or a blob's bytes as UTF-8) of column `index`; nil when NULL or a number.
    @inlinable public func string(_ index: Int) -> String? {
        let value = column(index)
        switch sqlite3_value_type(value) {
        case SQLITE_TEXT, SQLITE_BLOB: return Self.withBytes(of: value) { String(decoding: $0, as: UTF8.self) }
        default: return nil
        }
    }

    /// Calls `body` with the bytes of a text or blob column, in place (empty for NULL and
    /// numbers). The buffer is valid only during the call.
    @inlinable public func withBytes<T>(_ index: Int, _ body: (UnsafeRawBufferPointer) throws -> T) rethrows -> T {
        try Self.withBytes(of: column(index), body)
    }

    /// The column's value object: one `sqlite3_column_*` call per column read, then the cheap
    /// `sqlite3_value_*` accessors (each `sqlite3_column_*` call looks the column up and checks
    /// for a malloc failure again). Safe here: the connection is used by one thread at a time
    /// and the value is read before the statement moves.
    @inlinable func column(_ index: Int) -> OpaquePointer? {
        sqlite3_column_value(handle, Int32(index))
    }

    @inlinable static func withBytes<T>(of value: OpaquePointer?, _ body: (UnsafeRawBufferPointer) throws -> T) rethrows -> T {
        switch sqlite3_value_type(value) {
        case SQLITE_TEXT:
            // Asked for before the length, as SQLite's documentation requires.
            let start = sqlite3_value_text(value)
            return try body(UnsafeRawBufferPointer(start: start, count: Int(sqlite3_value_bytes(value))))
        case SQLITE_BLOB:
            let start = sqlite3_value_blob(value)
            return try body(UnsafeRawBufferPointer(start: start, count: Int(sqlite3_value_bytes(value))))
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
    @inlinable public func forEachRow(_ body: (RowReader) throws -> Void) throws {
        while try advance() {
            try body(RowReader(handle: handle))
        }
    }
}

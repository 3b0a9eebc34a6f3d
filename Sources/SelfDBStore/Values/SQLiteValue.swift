import Foundation
import GRDBSQLite

/// One of SQLite's five storage classes.
public enum SQLiteValue: Sendable, Hashable {
    /// NULL.
    case null
    /// A 64-bit integer.
    case integer(Int64)
    /// A double.
    case real(Double)
    /// UTF-8 text.
    case text(String)
    /// Bytes.
    case blob(Data)

    /// The integer, for `.integer`.
    public var intValue: Int64? {
        if case .integer(let value) = self { return value }
        return nil
    }

    /// The number, for `.real` (and `.integer`, converted).
    public var doubleValue: Double? {
        switch self {
        case .real(let value): value
        case .integer(let value): Double(value)
        default: nil
        }
    }

    /// The text, for `.text`.
    public var stringValue: String? {
        if case .text(let value) = self { return value }
        return nil
    }

    /// The bytes, for `.blob`.
    public var blobValue: Data? {
        if case .blob(let value) = self { return value }
        return nil
    }

    /// Whether the value is NULL.
    public var isNull: Bool { self == .null }

    /// The value as an SQL literal: `NULL`, `42`, `1.5`, `'it''s'`, `X'0102'`. Quotes are
    /// doubled, so the literal is safe to splice into SQL; binding is still preferable.
    public var sqlString: String {
        switch self {
        case .null: "NULL"
        case .integer(let value): String(value)
        case .real(let value):
            if value.isNaN { "NULL" } else if value.isInfinite { value > 0 ? "9e999" : "-9e999" } else { "\(value)" }
        case .text(let value): "'" + value.replacingOccurrences(of: "'", with: "''") + "'"
        case .blob(let value): "X'" + value.map { String(format: "%02X", $0) }.joined() + "'"
        }
    }

    /// Binds the value to parameter `index` (1-based) of a prepared statement; returns
    /// SQLite's result code.
    @discardableResult
    public func bind(to statement: OpaquePointer?, at index: Int32) -> Int32 {
        switch self {
        case .null: sqlite3_bind_null(statement, index)
        case .integer(let value): sqlite3_bind_int64(statement, index, value)
        case .real(let value): sqlite3_bind_double(statement, index, value)
        case .text(let value): sqlite3_bind_text(statement, index, value, -1, SQLITE_TRANSIENT)
        case .blob(let value):
            value.withUnsafeBytes { bytes in
                // A zero-length blob must not bind a nil pointer (that would be NULL).
                bytes.baseAddress == nil
                    ? sqlite3_bind_zeroblob(statement, index, 0)
                    : sqlite3_bind_blob(statement, index, bytes.baseAddress, Int32(bytes.count), SQLITE_TRANSIENT)
            }
        }
    }

    /// Reads column `index` (0-based) of the current row of `statement`.
    @inlinable
    public init(column index: Int32, of statement: OpaquePointer?) {
        // One column lookup, then the value accessors (see `RowReader.column`).
        let value = sqlite3_column_value(statement, index)
        switch sqlite3_value_type(value) {
        case SQLITE_INTEGER: self = .integer(sqlite3_value_int64(value))
        case SQLITE_FLOAT: self = .real(sqlite3_value_double(value))
        case SQLITE_TEXT:
            if let text = sqlite3_value_text(value) {
                let count = Int(sqlite3_value_bytes(value))
                self = .text(String(decoding: UnsafeBufferPointer(start: text, count: count), as: UTF8.self))
            } else {
                self = .text("")
            }
        case SQLITE_BLOB:
            let count = Int(sqlite3_value_bytes(value))
            if count > 0, let bytes = sqlite3_value_blob(value) {
                self = .blob(Data(bytes: bytes, count: count))
            } else {
                self = .blob(Data())
            }
        default: self = .null
        }
    }
}

extension SQLiteValue: Codable {
    private enum CodingKeys: String, CodingKey { case type, value }

    /// `{"type":"integer","value":42}`; blobs as base64. Tagged so integers and reals survive
    /// a JSON round trip apart.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        switch self {
        case .null: try container.encode("null", forKey: .type)
        case .integer(let value):
            try container.encode("integer", forKey: .type)
            try container.encode(value, forKey: .value)
        case .real(let value):
            try container.encode("real", forKey: .type)
            try container.encode(value, forKey: .value)
        case .text(let value):
            try container.encode("text", forKey: .type)
            try container.encode(value, forKey: .value)
        case .blob(let value):
            try container.encode("blob", forKey: .type)
            try container.encode(value.base64EncodedString(), forKey: .value)
        }
    }

    /// Decodes the `{"type": …, "value": …}` form ``encode(to:)`` writes; a blob is base64 text.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        switch try container.decode(String.self, forKey: .type) {
        case "null": self = .null
        case "integer": self = .integer(try container.decode(Int64.self, forKey: .value))
        case "real": self = .real(try container.decode(Double.self, forKey: .value))
        case "text": self = .text(try container.decode(String.self, forKey: .value))
        case "blob":
            guard let data = Data(base64Encoded: try container.decode(String.self, forKey: .value)) else {
                throw DecodingError.dataCorruptedError(forKey: .value, in: container, debugDescription: "blob value is not base64")
            }
            self = .blob(data)
        case let other:
            throw DecodingError.dataCorruptedError(forKey: .type, in: container, debugDescription: "unknown SQLite value type '\(other)'")
        }
    }
}

/// SQLite's "copy the bytes now" destructor, which the C macro `SQLITE_TRANSIENT` stands for
/// (Swift does not import that macro). Named as the C API names it.
// swift-format-ignore: AlwaysUseLowerCamelCase
public let SQLITE_TRANSIENT = unsafeBitCast(-1, to: sqlite3_destructor_type.self)

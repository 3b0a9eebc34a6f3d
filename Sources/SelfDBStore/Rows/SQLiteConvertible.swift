import Foundation

/// A Swift type a column value converts to, exactly or not at all.
///
/// | stored  | native | also converts to              |
/// |---------|--------|-------------------------------|
/// | integer | Int64  | Int, Bool (0/1), Double, String |
/// | real    | Double | Int, Int64, String, Bool (0/1)  |
/// | text    | String | Data, Int, Int64, Double, Bool ("true"/"false", any case) |
/// | blob    | Data   | String (valid UTF-8)          |
///
/// A conversion that would lose information (1.5 as Int, 2 as Bool, 2^60 as Double) gives nil.
public protocol SQLiteConvertible {
    /// The value as `Self`, or nil when NULL or not exactly representable.
    init?(sqliteValue: SQLiteValue)
}

extension Int64: SQLiteConvertible {
    @inlinable
    public init?(sqliteValue: SQLiteValue) {
        switch sqliteValue {
        case .integer(let value): self = value
        case .real(let value):
            // Int64(exactly:) refuses fractions and out-of-range values.
            guard let exact = Int64(exactly: value) else { return nil }
            self = exact
        case .text(let text):
            guard let value = Int64(text) else { return nil }
            self = value
        default: return nil
        }
    }
}

extension Int: SQLiteConvertible {
    @inlinable
    public init?(sqliteValue: SQLiteValue) {
        guard let wide = Int64(sqliteValue: sqliteValue), let value = Int(exactly: wide) else { return nil }
        self = value
    }
}

extension Double: SQLiteConvertible {
    @inlinable
    public init?(sqliteValue: SQLiteValue) {
        switch sqliteValue {
        case .real(let value): self = value
        case .integer(let value):
            guard let exact = Double(exactly: value) else { return nil }
            self = exact
        case .text(let text):
            guard let value = Double(text) else { return nil }
            self = value
        default: return nil
        }
    }
}

extension Bool: SQLiteConvertible {
    @inlinable
    public init?(sqliteValue: SQLiteValue) {
        switch sqliteValue {
        case .integer(0): self = false
        case .integer(1): self = true
        case .real(let value) where value == 0: self = false
        case .real(let value) where value == 1: self = true
        case .text(let text):
            switch text.lowercased() {
            case "true": self = true
            case "false": self = false
            default: return nil
            }
        default: return nil
        }
    }
}

extension String: SQLiteConvertible {
    @inlinable
    public init?(sqliteValue: SQLiteValue) {
        switch sqliteValue {
        case .text(let value): self = value
        case .integer(let value): self = String(value)
        case .real(let value): self = String(value)
        case .blob(let data):
            guard let text = String(data: data, encoding: .utf8) else { return nil }
            self = text
        case .null: return nil
        }
    }
}

extension Data: SQLiteConvertible {
    @inlinable
    public init?(sqliteValue: SQLiteValue) {
        switch sqliteValue {
        case .blob(let value): self = value
        case .text(let text): self = Data(text.utf8)
        default: return nil
        }
    }
}

extension SQLiteValue: SQLiteConvertible {
    /// Any value as it is stored, including NULL.
    @inlinable
    public init?(sqliteValue: SQLiteValue) {
        self = sqliteValue
    }
}

import Foundation

/// A Swift value that can be bound to a statement parameter.
public protocol SQLiteBindable {
    /// The value to bind.
    var sqliteValue: SQLiteValue { get }
}

extension SQLiteValue: SQLiteBindable {
    public var sqliteValue: SQLiteValue { self }
}

extension Int: SQLiteBindable {
    public var sqliteValue: SQLiteValue { .integer(Int64(self)) }
}

extension Int64: SQLiteBindable {
    public var sqliteValue: SQLiteValue { .integer(self) }
}

extension Int32: SQLiteBindable {
    public var sqliteValue: SQLiteValue { .integer(Int64(self)) }
}

extension Double: SQLiteBindable {
    public var sqliteValue: SQLiteValue { .real(self) }
}

extension Bool: SQLiteBindable {
    /// 1 or 0, as SQLite's `true` and `false` are.
    public var sqliteValue: SQLiteValue { .integer(self ? 1 : 0) }
}

extension String: SQLiteBindable {
    public var sqliteValue: SQLiteValue { .text(self) }
}

extension Substring: SQLiteBindable {
    public var sqliteValue: SQLiteValue { .text(String(self)) }
}

extension Data: SQLiteBindable {
    public var sqliteValue: SQLiteValue { .blob(self) }
}

extension UUID: SQLiteBindable {
    /// The 16 bytes, as a blob (the compact form CRDT tables key on).
    public var sqliteValue: SQLiteValue { .blob(data) }

    /// The 16 bytes of the UUID.
    public var data: Data {
        withUnsafeBytes(of: uuid) { Data($0) }
    }

    /// A UUID from 16 bytes; nil for any other length.
    public init?(data: Data) {
        guard data.count == 16 else { return nil }
        var bytes: uuid_t = (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
        withUnsafeMutableBytes(of: &bytes) { $0.copyBytes(from: data) }
        self.init(uuid: bytes)
    }
}

extension Optional: SQLiteBindable where Wrapped: SQLiteBindable {
    /// NULL for nil.
    public var sqliteValue: SQLiteValue { self?.sqliteValue ?? .null }
}

import Foundation

/// A record id type: `Int64` (INTEGER primary keys) or `UUID` (16-byte BLOB primary keys).
public protocol CRDTRecordID: Codable, Hashable, Sendable {
    /// The declared type a primary key column needs, as `PRAGMA table_info` reports it.
    static func accepts(declaredType: String) -> Bool
    /// The id as stored.
    var sqliteValue: SQLiteValue { get }
    /// The id from a stored value; nil when it is not of this type.
    init?(storedValue: SQLiteValue)
}

extension Int64: CRDTRecordID {
    public static func accepts(declaredType: String) -> Bool {
        declaredType.uppercased().contains("INT")
    }

    public init?(storedValue: SQLiteValue) {
        guard case .integer(let value) = storedValue else { return nil }
        self = value
    }
}

extension UUID: CRDTRecordID {
    public static func accepts(declaredType: String) -> Bool {
        let type = declaredType.uppercased()
        return type.isEmpty || type.contains("BLOB")
    }

    public init?(storedValue: SQLiteValue) {
        guard case .blob(let data) = storedValue, let uuid = UUID(data: data) else { return nil }
        self = uuid
    }
}

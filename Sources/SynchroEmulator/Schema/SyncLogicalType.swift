import SelfDBSpec

/// How a client stores a column locally (`logical_type` on the wire).
enum SyncLogicalType: String, Sendable {
    case boolean, int, int64, float, string, json, date, datetime

    init(_ type: ColumnType) {
        switch type {
        case .text, .varchar, .string, .uuid: self = .string
        case .integer, .int: self = .int
        case .bigint: self = .int64
        case .decimal, .float: self = .float
        case .boolean, .bool: self = .boolean
        case .date: self = .date
        case .timestamp, .datetime: self = .datetime
        case .json, .jsonb: self = .json
        }
    }

    /// The SQLite column affinity the server stores the column with (the same the
    /// client uses locally).
    var sqliteAffinity: String {
        switch self {
        case .boolean, .int, .int64: "INTEGER"
        case .float: "REAL"
        case .string, .json, .date, .datetime: "TEXT"
        }
    }
}

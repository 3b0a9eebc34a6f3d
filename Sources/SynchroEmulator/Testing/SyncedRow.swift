import EmulatorSupport
import Foundation

/// A row of a synced table as the sync server holds it, for assertions in tests; see
/// `SelfDBEmulator.syncedRow(table:id:)`.
public struct SyncedRow: Sendable, Equatable {
    /// One column value.
    public enum Value: Sendable, Equatable {
        /// SQL NULL.
        case null
        /// A boolean column.
        case bool(Bool)
        /// An integer or bigint column.
        case int(Int64)
        /// A float or decimal column.
        case double(Double)
        /// Text, dates and timestamps (`YYYY-MM-DDTHH:MM:SS.mmmZ`).
        case string(String)
        /// A json/jsonb column, as compact JSON text.
        case json(String)
    }

    /// The primary key (lower-cased, as the server stores and serves it).
    public var id: String
    /// The SQL table name.
    public var table: String
    /// The user the row belongs to (directly or through its parent).
    public var ownerID: String
    /// When the server last wrote the row.
    public var updatedAt: Date?
    /// When it was soft-deleted; nil for a live row.
    public var deletedAt: Date?
    /// Every column of the spec, by name.
    public var values: [String: Value]

    /// Whether the row is soft-deleted.
    public var isDeleted: Bool { deletedAt != nil }

    package init(_ row: StoredRow, table: SyncTable) {
        id = row.id
        self.table = table.name
        ownerID = row.owner
        updatedAt = row.updatedAt.map(Self.date)
        deletedAt = row.deletedAt.map(Self.date)
        var values: [String: Value] = [:]
        for column in table.columns {
            let value = row.data[column.name] ?? .null
            values[column.name] =
                switch value {
                case .null: .null
                case .bool(let flag): .bool(flag)
                case .int(let number): .int(number)
                case .double(let number): .double(number)
                case .string(let text) where column.logicalType != .json: .string(text)
                default: .json(JSONWriter.string(value))
                }
        }
        self.values = values
    }

    private static func date(_ instant: SyncTimestamp) -> Date {
        Date(timeIntervalSince1970: Double(instant.milliseconds) / 1000)
    }
}

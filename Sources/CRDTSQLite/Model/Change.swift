import Foundation

/// One replicated change: a column's value of a record, or the record's life (created,
/// deleted, resurrected).
///
/// Record-level changes have no `columnName`; their `columnVersion` is the record's causal
/// length: odd while it exists, even once deleted, and higher wins. A tombstone is a
/// record-level change with an even causal length. `tableName` is an addition to the original
/// API so a database can replicate several tables; it is decoded as `""` when absent, which
/// a merge accepts only when one table is tracked.
public struct Change<RecordID: CRDTRecordID>: Codable, Hashable, Sendable {
    /// The table the record belongs to.
    public let tableName: String
    /// The record's primary key.
    public let recordId: RecordID
    /// The column; nil for a record-level change (creation, deletion, resurrection).
    public let columnName: String?
    /// The column's value (`.null` for NULL); nil for record-level changes.
    public let value: SQLiteValue?
    /// The column's version, or the record's causal length for record-level changes.
    public let columnVersion: UInt64
    /// The Lamport time of the write that produced it.
    public let dbVersion: UInt64
    /// The node that made the write.
    public let nodeId: UInt64
    /// The position in the sender's change feed (its local cursor).
    public let localDbVersion: UInt64
    /// Reserved; 0.
    public var flags: UInt32

    /// A change.
    public init(tableName: String, recordId: RecordID, columnName: String?, value: SQLiteValue?, columnVersion: UInt64, dbVersion: UInt64, nodeId: UInt64, localDbVersion: UInt64, flags: UInt32 = 0) {
        self.tableName = tableName
        self.recordId = recordId
        self.columnName = columnName
        self.value = value
        self.columnVersion = columnVersion
        self.dbVersion = dbVersion
        self.nodeId = nodeId
        self.localDbVersion = localDbVersion
        self.flags = flags
    }

    /// The record was deleted.
    public var isTombstone: Bool { columnName == nil && columnVersion % 2 == 0 }
    /// The column was set to NULL.
    public var isColumnDeletion: Bool { columnName != nil && (value == nil || value == .null) }
    /// The column was set to a value.
    public var isColumnUpdate: Bool { columnName != nil && !isColumnDeletion }
    /// The record was created or resurrected (a record-level change with odd causal length).
    public var isRecordCreation: Bool { columnName == nil && columnVersion % 2 == 1 }

    private enum CodingKeys: String, CodingKey {
        case tableName, recordId, columnName, value, columnVersion, dbVersion, nodeId, localDbVersion, flags
    }

    /// Decodes a change a peer sent; an absent table name is empty and an absent local version is 0.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        tableName = try container.decodeIfPresent(String.self, forKey: .tableName) ?? ""
        recordId = try container.decode(RecordID.self, forKey: .recordId)
        columnName = try container.decodeIfPresent(String.self, forKey: .columnName)
        value = try container.decodeIfPresent(SQLiteValue.self, forKey: .value)
        columnVersion = try container.decode(UInt64.self, forKey: .columnVersion)
        dbVersion = try container.decode(UInt64.self, forKey: .dbVersion)
        nodeId = try container.decode(UInt64.self, forKey: .nodeId)
        localDbVersion = try container.decodeIfPresent(UInt64.self, forKey: .localDbVersion) ?? 0
        flags = try container.decodeIfPresent(UInt32.self, forKey: .flags) ?? 0
    }
}

import Foundation
import SelfDBStore

/// A batch of changes checked and grouped by record, before a merge writes anything: every
/// change names a tracked table and column and carries versions that fit Int64.
struct MergePlan<RecordID: CRDTRecordID> {
    /// The changes of one record, as indexes into the batch.
    struct Group {
        let table: Int
        let key: SQLiteValue
        var life: [Int] = []
        var cells: [Int] = []
    }

    /// The tracked tables the batch names (groups refer to them by index).
    private(set) var tables: [TrackedTable] = []
    /// Records in the order the batch first names them.
    private(set) var groups: [Group] = []
    /// The column position of each change in its table (unused for record-level changes).
    private(set) var positions: [Int]

    private struct RecordKey: Hashable {
        let table: Int
        let key: SQLiteValue
    }

    init(_ changes: [Change<RecordID>], tables tracked: [String: TrackedTable]) throws {
        positions = Array(repeating: 0, count: changes.count)
        var tableIndexes: [String: Int] = [:]
        var columnPositions: [[String: Int]] = []
        var order: [RecordKey: Int] = [:]
        let onlyTable = tracked.count == 1 ? tracked.values.first : nil
        for (offset, change) in changes.enumerated() {
            let tableIndex: Int
            if let known = tableIndexes[change.tableName] {
                tableIndex = known
            } else {
                guard let table = change.tableName.isEmpty ? onlyTable : tracked[change.tableName] else {
                    throw CRDTError.invalidChange("table '\(change.tableName)' is not tracked here")
                }
                // "" (a change from before table names) and the name are the same table.
                if let known = tableIndexes[table.name] {
                    tableIndex = known
                } else {
                    tableIndex = tables.count
                    tables.append(table)
                    columnPositions.append(table.positions)
                    tableIndexes[table.name] = tableIndex
                }
                tableIndexes[change.tableName] = tableIndex
            }
            let table = tables[tableIndex]
            if let column = change.columnName {
                guard let position = columnPositions[tableIndex][column] else {
                    throw CRDTError.invalidChange("\(table.name) has no replicated column '\(column)'")
                }
                positions[offset] = position
            }
            guard change.dbVersion <= UInt64(Int64.max), change.columnVersion <= UInt64(Int64.max) else { throw CRDTError.clockOverflow }
            guard change.columnVersion > 0 else { throw CRDTError.invalidChange("version 0 on \(table.name)") }
            guard change.nodeId <= UInt64(Int64.max) else { throw CRDTError.invalidChange("node id \(change.nodeId) is larger than Int64.max") }
            let identity = RecordKey(table: tableIndex, key: change.recordId.sqliteValue)
            let index: Int
            if let known = order[identity] {
                index = known
            } else {
                index = groups.count
                order[identity] = index
                groups.append(Group(table: tableIndex, key: identity.key))
            }
            if change.columnName == nil {
                groups[index].life.append(offset)
            } else {
                groups[index].cells.append(offset)
            }
        }
    }
}

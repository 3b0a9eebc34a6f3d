import Foundation
import GRDBSQLite
import SelfDBStore

extension CRDTSQLite {
    /// Merges changes from other nodes and returns the ones that won (the rest were older
    /// than what this node has, or already known: merging the same batch twice accepts
    /// nothing the second time).
    ///
    /// Per cell, the higher `(columnVersion, dbVersion, nodeId)` wins. Per record, the higher
    /// causal length wins: a deletion removes the row and its column metadata, and column
    /// changes for a deleted record are ignored unless the same batch resurrects it. The merge
    /// runs in a savepoint (inside the caller's transaction if there is one) and is all or
    /// nothing: a change naming an unknown table or column, or versions beyond `Int64.max`,
    /// throws before anything is written.
    @discardableResult
    public func mergeChanges(_ changes: [Change<RecordID>]) throws -> [Change<RecordID>] {
        guard !changes.isEmpty else { return [] }
        let groups = try validatedGroups(changes)
        let highest = changes.map(\.dbVersion).max() ?? 0
        return try run {
            try connection.transaction {
                try statements.run("UPDATE _crdt_state SET merging = 1, clock = max(clock, ?) WHERE id = 1", [.integer(Int64(highest))])
                // The feed's sequence is kept here during the merge and stored once at the end.
                var sequence = try state("seq")
                var accepted: [Change<RecordID>] = []
                for group in groups {
                    try merge(group, sequence: &sequence, into: &accepted)
                }
                try statements.run("UPDATE _crdt_state SET merging = 0, seq = ? WHERE id = 1", [.integer(sequence)])
                return accepted
            }
        }
    }

    /// The changes of one record, the record-level ones first.
    struct RecordGroup {
        let table: TrackedTable
        let key: SQLiteValue
        var life: [Change<RecordID>] = []
        var cells: [Change<RecordID>] = []
    }

    private struct RecordKey: Hashable {
        let table: String
        let key: SQLiteValue
    }

    private func validatedGroups(_ changes: [Change<RecordID>]) throws -> [RecordGroup] {
        var order: [RecordKey: Int] = [:]
        var groups: [RecordGroup] = []
        let onlyTable = tables.count == 1 ? tables.values.first : nil
        for change in changes {
            guard let table = change.tableName.isEmpty ? onlyTable : tables[change.tableName] else {
                throw CRDTError.invalidChange("table '\(change.tableName)' is not tracked here")
            }
            if let column = change.columnName, !table.columns.contains(column) {
                throw CRDTError.invalidChange("\(table.name) has no replicated column '\(column)'")
            }
            guard change.dbVersion <= UInt64(Int64.max), change.columnVersion <= UInt64(Int64.max) else { throw CRDTError.clockOverflow }
            guard change.columnVersion > 0 else { throw CRDTError.invalidChange("version 0 on \(table.name)") }
            guard change.nodeId <= UInt64(Int64.max) else { throw CRDTError.invalidChange("node id \(change.nodeId) is larger than Int64.max") }
            let key = change.recordId.sqliteValue
            let identity = RecordKey(table: table.name, key: key)
            let index: Int
            if let known = order[identity] {
                index = known
            } else {
                index = groups.count
                order[identity] = index
                groups.append(RecordGroup(table: table, key: key))
            }
            if change.columnName == nil {
                groups[index].life.append(change)
            } else {
                groups[index].cells.append(change)
            }
        }
        return groups
    }

    private func merge(_ group: RecordGroup, sequence: inout Int64, into accepted: inout [Change<RecordID>]) throws {
        let table = group.table
        let tableName = SQLiteValue.text(table.name)
        var lifeLength = try statements.scalar("SELECT cl FROM _crdt_records WHERE tbl = ? AND pk = ?", [tableName, group.key])?.intValue ?? 0
        // A record this node never saw has no row and no cells: nothing to look up or clear.
        var isFresh = lifeLength == 0
        var groupSequence: Int64?
        func nextSequence() -> Int64 {
            if let groupSequence { return groupSequence }
            sequence += 1
            groupSequence = sequence
            return sequence
        }

        // The record's life: the highest causal length wins.
        if let life = group.life.max(by: { ($0.columnVersion, $0.dbVersion, $0.nodeId) < ($1.columnVersion, $1.dbVersion, $1.nodeId) }),
           Int64(life.columnVersion) > lifeLength {
            try statements.run(
                "INSERT OR REPLACE INTO _crdt_records (tbl, pk, cl, db_version, node_id, seq) VALUES (?, ?, ?, ?, ?, ?)",
                [tableName, group.key, .integer(Int64(life.columnVersion)), .integer(Int64(life.dbVersion)), .integer(Int64(life.nodeId)), .integer(nextSequence())])
            if !isFresh {
                // A new life starts from scratch: the old cells belong to the previous one.
                try statements.run("DELETE FROM _crdt_columns WHERE tbl = ? AND pk = ?", [tableName, group.key])
                try statements.run(table.deleteStatement, [group.key])
                isFresh = true
            }
            lifeLength = Int64(life.columnVersion)
            accepted.append(life)
        }
        guard !group.cells.isEmpty, lifeLength % 2 == 0 ? lifeLength == 0 : true else { return }
        if lifeLength == 0, let first = group.cells.first {
            // Cells of a record this node never saw: it exists (causal length 1).
            try statements.run(
                "INSERT INTO _crdt_records (tbl, pk, cl, db_version, node_id, seq) VALUES (?, ?, 1, ?, ?, ?)",
                [tableName, group.key, .integer(Int64(first.dbVersion)), .integer(Int64(first.nodeId)), .integer(nextSequence())])
        }

        // Cells: strictly greater (version, db version, node) wins.
        var winners: [String: Change<RecordID>] = [:]
        var order: [String] = []
        for cell in group.cells {
            guard let column = cell.columnName else { continue }
            let incoming = (Int64(cell.columnVersion), Int64(cell.dbVersion), Int64(cell.nodeId))
            if let pending = winners[column] {
                guard incoming > (Int64(pending.columnVersion), Int64(pending.dbVersion), Int64(pending.nodeId)) else { continue }
            } else if !isFresh {
                var local: (Int64, Int64, Int64)?
                try statements.query("SELECT col_version, db_version, node_id FROM _crdt_columns WHERE tbl = ? AND pk = ? AND col = ?", [tableName, group.key, .text(column)]) { row in
                    local = (sqlite3_column_int64(row, 0), sqlite3_column_int64(row, 1), sqlite3_column_int64(row, 2))
                }
                if let local, !(incoming > local) { continue }
                order.append(column)
            } else {
                order.append(column)
            }
            winners[column] = cell
        }
        guard !order.isEmpty else { return }
        let seq = SQLiteValue.integer(nextSequence())
        let exists = isFresh ? false : try statements.scalar(table.existsStatement, [group.key]) != nil
        if exists {
            for column in order {
                try statements.run(table.updateStatement(column: column), [winners[column]?.value ?? .null, group.key])
            }
        } else {
            try statements.run(table.insertStatement(columns: order), [group.key] + order.map { winners[$0]?.value ?? .null })
        }
        for column in order {
            guard let cell = winners[column] else { continue }
            try statements.run(
                "INSERT OR REPLACE INTO _crdt_columns (tbl, pk, col, col_version, db_version, node_id, seq) VALUES (?, ?, ?, ?, ?, ?, ?)",
                [tableName, group.key, .text(column), .integer(Int64(cell.columnVersion)), .integer(Int64(cell.dbVersion)), .integer(Int64(cell.nodeId)), seq])
            accepted.append(cell)
        }
    }
}

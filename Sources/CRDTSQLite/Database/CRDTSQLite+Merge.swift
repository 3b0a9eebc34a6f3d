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
        let plan = try MergePlan(changes, tables: tables)
        let highest = Int64(changes.map(\.dbVersion).max() ?? 0)
        return try run {
            try connection.transaction {
                tracking.merging = true
                defer { tracking.merging = false }
                let clock = try tracking.raiseClock(to: highest)
                try statements.run("UPDATE _crdt_state SET clock = ? WHERE id = 1", [.integer(clock)])
                let writer = MergeWriter(statements: statements, tables: plan.tables)
                var accepted: [Change<RecordID>] = []
                for group in plan.groups {
                    try merge(group, of: changes, plan: plan, writer: writer, into: &accepted)
                }
                return accepted
            }
        }
    }

    private func merge(_ group: MergePlan<RecordID>.Group, of changes: [Change<RecordID>], plan: MergePlan<RecordID>, writer: MergeWriter, into accepted: inout [Change<RecordID>]) throws {
        let table = plan.tables[group.table]
        var record = try writer.record(table: group.table, key: group.key) ?? MergeWriter.Record(columns: table.columns.count)
        // A record this node never saw has no row and no cells: nothing to compare or clear.
        var isFresh = record.causalLength == 0
        var sequence: Int64?
        func nextSequence() throws -> Int64 {
            if let sequence { return sequence }
            let next = try tracking.nextSequence()
            sequence = next
            return next
        }

        // The record's life: the highest causal length wins.
        if let best = group.life.max(by: { changes[$0].stamp < changes[$1].stamp }).map({ changes[$0] }),
            Int64(best.columnVersion) > record.causalLength
        {
            if !isFresh {
                // A new life starts from scratch: the old cells belong to the previous one.
                try writer.delete(table: group.table, key: group.key)
                record.cells = Array(repeating: nil, count: table.columns.count)
                isFresh = true
            }
            record.causalLength = Int64(best.columnVersion)
            record.life = Cell(version: record.causalLength, dbVersion: Int64(best.dbVersion), node: Int64(best.nodeId), sequence: try nextSequence())
            accepted.append(best)
        }
        guard !group.cells.isEmpty, record.causalLength == 0 || record.causalLength % 2 == 1 else {
            if let sequence { try writer.save(record, table: group.table, key: group.key, sequence: sequence) }
            return
        }
        if record.causalLength == 0, let first = group.cells.first.map({ changes[$0] }) {
            // Cells of a record this node never saw: it exists (causal length 1).
            record.causalLength = 1
            record.life = Cell(version: 1, dbVersion: Int64(first.dbVersion), node: Int64(first.nodeId), sequence: try nextSequence())
        }

        // Cells: strictly greater (version, db version, node) wins, against the best of the
        // batch so far or else the local cell.
        var winners: [(position: Int, change: Int)] = []
        for index in group.cells {
            let position = plan.positions[index]
            let incoming = changes[index].stamp
            if let pending = winners.firstIndex(where: { $0.position == position }) {
                guard incoming > changes[winners[pending].change].stamp else { continue }
                winners[pending].change = index
            } else {
                if !isFresh, let local = record.cells[position], !(incoming > local.stamp) { continue }
                winners.append((position, index))
            }
        }
        if !winners.isEmpty {
            let sequence = try nextSequence()
            try writer.write(winners.map { ($0.position, changes[$0.change].value ?? .null) }, table: group.table, key: group.key)
            for winner in winners {
                let change = changes[winner.change]
                record.cells[winner.position] = Cell(version: Int64(change.columnVersion), dbVersion: Int64(change.dbVersion), node: Int64(change.nodeId), sequence: sequence)
                accepted.append(change)
            }
        }
        if let sequence { try writer.save(record, table: group.table, key: group.key, sequence: sequence) }
    }
}

extension Change {
    /// What merges compare, as stored (versions were checked to fit Int64).
    var stamp: (Int64, Int64, Int64) { (Int64(columnVersion), Int64(dbVersion), Int64(nodeId)) }
}

import Foundation
import GRDBSQLite
import SelfDBStore

extension CRDTSQLite {
    /// Changes recorded after local cursor `version` (0 for everything), oldest first.
    ///
    /// The cursor is this database's local sequence (`localDbVersion` of the changes), which
    /// also advances when changes are merged, so a node relays what it learned from others.
    /// With `maxChanges` > 0 the result is cut at a cursor boundary: the changes of one write
    /// are never split (a write larger than the limit comes whole). Continue from the last
    /// change's `localDbVersion`.
    public func getChangesSince(_ version: UInt64, maxChanges: Int = 0) throws -> [Change<RecordID>] {
        try changes(since: version, excluding: [], maxChanges: maxChanges)
    }

    /// Like ``getChangesSince(_:maxChanges:)``, leaving out changes made by the given nodes
    /// (typically the peer you are sending to: it has them).
    public func getChangesSinceExcluding(_ version: UInt64, excluding: [UInt64], maxChanges: Int = 0) throws -> [Change<RecordID>] {
        try changes(since: version, excluding: Set(excluding), maxChanges: maxChanges)
    }

    private func changes(since version: UInt64, excluding: Set<UInt64>, maxChanges: Int) throws -> [Change<RecordID>] {
        let cursor = Int64(clamping: version)
        var perTable: [[Change<RecordID>]] = []
        for table in tables.values.sorted(by: { $0.name < $1.name }) {
            perTable.append(try changes(of: table, after: cursor, excluding: excluding))
        }
        let found = perTable.count == 1 ? perTable[0] : Self.inCursorOrder(perTable)
        guard maxChanges > 0, found.count > maxChanges else { return found }
        var end = maxChanges
        // Never split one cursor value; a single write larger than the limit comes whole.
        let boundary = found[maxChanges - 1].localDbVersion
        if found[maxChanges].localDbVersion == boundary {
            let firstOfGroup = found.firstIndex { $0.localDbVersion == boundary } ?? 0
            end = firstOfGroup > 0 ? firstOfGroup : (found.lastIndex { $0.localDbVersion == boundary } ?? maxChanges - 1) + 1
        }
        return Array(found[..<end])
    }

    /// One table's changes in cursor order: per record write, its life first, then its cells
    /// by column name.
    private func changes(of table: TrackedTable, after cursor: Int64, excluding: Set<UInt64>) throws -> [Change<RecordID>] {
        var found: [Change<RecordID>] = []
        let byName = table.positionsByName
        var cells = [Cell?](repeating: nil, count: table.columns.count)
        let firstValue: Int32 = 8
        try statements.query(table.changesQuery, [.integer(cursor)]) { row in
            let recordId = try recordID(SQLiteValue(column: 0, of: row))
            let lifeNode = UInt64(sqlite3_column_int64(row, 3))
            let lifeSequence = sqlite3_column_int64(row, 4)
            if lifeSequence > cursor, excluding.isEmpty || !excluding.contains(lifeNode) {
                found.append(
                    Change(
                        tableName: table.name,
                        recordId: recordId,
                        columnName: nil,
                        value: nil,
                        columnVersion: UInt64(sqlite3_column_int64(row, 1)),
                        dbVersion: UInt64(sqlite3_column_int64(row, 2)),
                        nodeId: lifeNode,
                        localDbVersion: UInt64(lifeSequence)
                    )
                )
            }
            // Cells of a record without a row (none should exist) have no value to send.
            guard sqlite3_column_int(row, 7) != 0, sqlite3_column_int64(row, 5) > cursor else { return }
            for position in cells.indices { cells[position] = nil }
            let life = Cell(version: 1, dbVersion: sqlite3_column_int64(row, 2), node: Int64(lifeNode), sequence: lifeSequence)
            CellBlob.forEach(column: 6, of: row, life: life) { position, cell in
                if position < cells.count { cells[position] = cell }
            }
            for position in byName {
                guard let cell = cells[position], cell.sequence > cursor else { continue }
                let node = UInt64(cell.node)
                guard excluding.isEmpty || !excluding.contains(node) else { continue }
                found.append(
                    Change(
                        tableName: table.name,
                        recordId: recordId,
                        columnName: table.columns[position],
                        value: SQLiteValue(column: firstValue + Int32(position), of: row),
                        columnVersion: UInt64(cell.version),
                        dbVersion: UInt64(cell.dbVersion),
                        nodeId: node,
                        localDbVersion: UInt64(cell.sequence)
                    )
                )
            }
        }
        return Self.sortedByCursor(found)
    }

    /// One metadata row holds the changes of several writes (a record inserted at 1 and
    /// updated at 5 is found at 5 with a cell still at 1), so rows in index order are not
    /// changes in cursor order; paging relies on it (a page cut at 5 would skip the 1). A stable
    /// sort by cursor keeps each write's changes as listed: the life, then cells by name. A
    /// feed of inserts only is in order already and is not sorted.
    private static func sortedByCursor(_ changes: [Change<RecordID>]) -> [Change<RecordID>] {
        let cursors = changes.map(\.localDbVersion)
        guard zip(cursors, cursors.dropFirst()).contains(where: { $0 > $1 }) else { return changes }
        let order = cursors.indices.sorted { (cursors[$0], $0) < (cursors[$1], $1) }
        return order.map { changes[$0] }
    }

    /// Several tables' feeds as one, in cursor order (a sequence belongs to one table's
    /// writes, and each feed is in order already: a merge of sorted runs).
    private static func inCursorOrder(_ feeds: [[Change<RecordID>]]) -> [Change<RecordID>] {
        var merged: [Change<RecordID>] = []
        merged.reserveCapacity(feeds.reduce(0) { $0 + $1.count })
        var next = Array(repeating: 0, count: feeds.count)
        while true {
            var pick: Int?
            for (feed, index) in next.enumerated() where index < feeds[feed].count {
                if let current = pick, feeds[current][next[current]].localDbVersion <= feeds[feed][index].localDbVersion { continue }
                pick = feed
            }
            guard let pick else { return merged }
            merged.append(feeds[pick][next[pick]])
            next[pick] += 1
        }
    }

    func recordID(_ value: SQLiteValue) throws -> RecordID {
        guard let id = RecordID(storedValue: value) else { throw CRDTError.invalidRecordIDType }
        return id
    }
}

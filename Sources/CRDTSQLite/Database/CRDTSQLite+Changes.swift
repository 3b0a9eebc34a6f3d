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
        let cursor = SQLiteValue.integer(Int64(clamping: version))
        var found: [Change<RecordID>] = []
        for table in tables.values.sorted(by: { $0.name < $1.name }) {
            let name = SQLiteValue.text(table.name)
            try statements.query("SELECT pk, cl, db_version, node_id, seq FROM _crdt_records WHERE tbl = ? AND seq > ?", [name, cursor]) { row in
                let node = UInt64(sqlite3_column_int64(row, 3))
                guard !excluding.contains(node) else { return }
                found.append(Change(
                    tableName: table.name, recordId: try recordID(SQLiteValue(column: 0, of: row)), columnName: nil, value: nil,
                    columnVersion: UInt64(sqlite3_column_int64(row, 1)), dbVersion: UInt64(sqlite3_column_int64(row, 2)),
                    nodeId: node, localDbVersion: UInt64(sqlite3_column_int64(row, 4))))
            }
            try statements.query(table.columnChangesQuery, [cursor]) { row in
                let node = UInt64(sqlite3_column_int64(row, 5))
                guard !excluding.contains(node) else { return }
                found.append(Change(
                    tableName: table.name, recordId: try recordID(SQLiteValue(column: 0, of: row)),
                    columnName: String(cString: sqlite3_column_text(row, 1)), value: SQLiteValue(column: 2, of: row),
                    columnVersion: UInt64(sqlite3_column_int64(row, 3)), dbVersion: UInt64(sqlite3_column_int64(row, 4)),
                    nodeId: node, localDbVersion: UInt64(sqlite3_column_int64(row, 6))))
            }
        }
        // Cursor order; within one write, the record's life before its columns.
        found.sort { lhs, rhs in
            if lhs.localDbVersion != rhs.localDbVersion { return lhs.localDbVersion < rhs.localDbVersion }
            if (lhs.columnName == nil) != (rhs.columnName == nil) { return lhs.columnName == nil }
            if lhs.tableName != rhs.tableName { return lhs.tableName < rhs.tableName }
            return (lhs.columnName ?? "") < (rhs.columnName ?? "")
        }
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

    func recordID(_ value: SQLiteValue) throws -> RecordID {
        guard let id = RecordID(storedValue: value) else { throw CRDTError.invalidRecordIDType }
        return id
    }
}

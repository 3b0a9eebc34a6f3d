import Foundation
import GRDB
import SelfDBRuntime

/// One pending change as the triggers recorded it.
struct PendingChange: Sendable, Equatable {
    var table: String
    var recordID: String
    var operation: String
    var base: String?
    var clientUpdatedAt: String
    var seq: Int64
}

/// A pending change on its way to the server: the change as sent, and the seq it had.
struct OutgoingChange: Sendable {
    var pending: PendingChange
    var change: PushChange
}

/// Reads the pending changes in push order and turns them into push requests. Statements
/// that run once per change are cached: compiling them each time cost more than running them.
enum PendingQueue {
    static func count(in db: Database) throws -> Int {
        try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM _synchro_pending") ?? 0
    }

    /// The records with changes newer than `watermark`, parents' tables first and oldest
    /// first within a table rank, and the highest seq seen (the next watermark). Each pass
    /// of a cycle pushes these; changes made meanwhile get a higher seq and the next pass.
    static func round(after watermark: Int64, rank: [String: Int], in db: Database) throws -> (keys: [(table: String, id: String)], highest: Int64) {
        let rows = try Row.fetchAll(
            db,
            sql: "SELECT table_name, record_id, seq FROM _synchro_pending WHERE seq > ? AND operation != '__drop'",
            arguments: [watermark]
        )
        var highest = watermark
        let entries = rows.map { row -> (table: String, id: String, seq: Int64) in
            let seq: Int64 = row["seq"]
            highest = max(highest, seq)
            return (row["table_name"], row["record_id"], seq)
        }
        let sorted = entries.sorted { lhs, rhs in
            let (left, right) = (rank[lhs.table] ?? 0, rank[rhs.table] ?? 0)
            return left != right ? left < right : lhs.seq < rhs.seq
        }
        return (sorted.map { ($0.table, $0.id) }, highest)
    }

    /// The changes of `keys` as they stand now, marked in flight, with each record's full
    /// local row as its data. Records whose pending row is gone (a create and a delete
    /// cancelled out) are skipped; a table no longer synced drops its pending rows.
    static func prepare(_ keys: ArraySlice<(table: String, id: String)>, schema: LocalSchema, in db: Database) throws -> [OutgoingChange] {
        var outgoing: [OutgoingChange] = []
        var selects: [String: String] = [:]
        for key in keys {
            let select = try db.cachedStatement(sql: "SELECT * FROM _synchro_pending WHERE table_name = ? AND record_id = ?")
            guard let row = try Row.fetchOne(select, arguments: [key.table, key.id]) else { continue }
            let pending = PendingChange(
                table: row["table_name"],
                recordID: row["record_id"],
                operation: row["operation"],
                base: row["base_updated_at"],
                clientUpdatedAt: row["client_updated_at"],
                seq: row["seq"]
            )
            guard let table = schema.table(pending.table), let operation = PushOperation.known(pending.operation) else {
                try remove(pending, in: db)
                continue
            }
            var data: [String: JSONValue]?
            if operation != .delete {
                let sql = selects[table.name] ?? localRowSQL(table)
                selects[table.name] = sql
                guard let local = try localRow(of: pending.recordID, in: table, sql: sql, db: db) else {
                    // Nothing left to send: the row was removed without a trigger (e.g. a
                    // table rebuilt by the app).
                    try remove(pending, in: db)
                    continue
                }
                data = local
            }
            try db.cachedStatement(sql: "UPDATE _synchro_pending SET inflight_seq = seq WHERE table_name = ? AND record_id = ?")
                .execute(arguments: [pending.table, pending.recordID])
            let change = PushChange(
                id: pending.recordID,
                tableName: pending.table,
                operation: operation,
                data: data,
                clientUpdatedAt: pending.clientUpdatedAt,
                baseUpdatedAt: pending.base
            )
            outgoing.append(OutgoingChange(pending: pending, change: change))
        }
        return outgoing
    }

    /// The select ``localRow(of:in:sql:db:)`` runs: the synced columns by position, in the
    /// table's order (looking each up by name in a `SELECT *` row was half of preparing a push).
    static func localRowSQL(_ table: LocalTable) -> String {
        let names = table.columns.map(\.name.quotedDatabaseIdentifier).joined(separator: ", ")
        return "SELECT \(names) FROM \(table.name.quotedDatabaseIdentifier) WHERE \(table.primaryKey.quotedDatabaseIdentifier) = ?"
    }

    /// The local row as push data: every synced column by its logical type, the key (and a
    /// text parent key) in lower case, as the server keeps ids.
    static func localRow(of id: String, in table: LocalTable, sql: String, db: Database) throws -> [String: JSONValue]? {
        guard let row = try Row.fetchOne(db.cachedStatement(sql: sql), arguments: [id]) else { return nil }
        var data: [String: JSONValue] = Dictionary(minimumCapacity: table.columns.count)
        for (index, column) in table.columns.enumerated() {
            let stored: DatabaseValue = row[index]
            var value = ValueConversion.json(stored, as: column.logicalType)
            if column.name == table.primaryKey || column.name == table.parentKey, let text = value.stringValue {
                value = .string(text.lowercased())
            }
            data[column.name] = value
        }
        return data
    }

    static func remove(_ pending: PendingChange, in db: Database) throws {
        try db.cachedStatement(sql: "DELETE FROM _synchro_pending WHERE table_name = ? AND record_id = ?")
            .execute(arguments: [pending.table, pending.recordID])
    }
}

extension PushOperation {
    /// The operation for a stored name; nil for anything else.
    static func known(_ name: String) -> PushOperation? {
        switch PushOperation(rawValue: name) {
        case .unknown: nil
        case let operation: operation
        }
    }
}

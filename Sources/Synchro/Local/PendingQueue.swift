import Foundation
import GRDB
import GRDBBinding
import SelfDBRuntime

/// One pending change as the triggers recorded it.
struct PendingChange: Sendable, Equatable {
    var table: String
    var recordID: String
    var operation: String
    var base: String?
    var clientUpdatedAt: String
    var seq: Int64
    /// Whether a push of this record's change went out without an answer settling it (the
    /// answer lost or cut, or the app stopped mid-push): the server may have applied it.
    var sentBefore = false
}

/// A pending change on its way to the server: the change as sent, and the seq it had.
struct OutgoingChange: Sendable {
    var pending: PendingChange
    var change: PushChange
}

/// A change read ahead of its batch (``PendingQueue/readAhead(_:schema:in:)``), with the local
/// row's stored values it was made from (none for a delete), to tell later whether it still
/// stands.
struct ReadAheadChange: Sendable {
    var outgoing: OutgoingChange
    var stored: [DatabaseValue]?
}

/// Reads the pending changes in push order and turns them into push requests. Statements
/// that run once per change are cached: compiling them each time cost more than running them.
enum PendingQueue {
    /// The records with pending changes; nil while writes wait in the change log (fold it
    /// first: until then, a create and a delete that cancel out still count).
    static func count(in db: Database) throws -> Int? {
        guard try ChangeLog.isEmpty(in: db) else { return nil }
        return try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM _synchro_pending") ?? 0
    }

    /// Whether no change newer than `watermark` waits, in the pending queue or the change log.
    static func isEmpty(after watermark: Int64, in db: Database) throws -> Bool {
        guard try ChangeLog.isEmpty(in: db) else { return false }
        let select = try db.cachedStatement(sql: "SELECT EXISTS (SELECT 1 FROM _synchro_pending WHERE seq > ? AND operation != '__drop')")
        try select.bind([watermark.databaseValue])
        return try !(Bool.fetchOne(select) ?? false)
    }

    /// The records with changes newer than `watermark`, parents' tables first and oldest
    /// first within a table rank, and the highest seq seen (the next watermark). Each pass
    /// of a cycle pushes these; changes made meanwhile get a higher seq and the next pass.
    /// Folds the change log first: call in a write transaction.
    static func round(after watermark: Int64, rank: [String: Int], in db: Database) throws -> (keys: [(table: String, id: String)], highest: Int64) {
        try ChangeLog.fold(in: db)
        // In seq order from SQLite (the seq is the rowid), then grouped by rank, each group
        // keeping that order: sorting the whole round by (rank, seq) looked the rank up twice
        // per comparison, half the time of starting a push of 10,000 records.
        let select = try db.cachedStatement(sql: "SELECT table_name, record_id, seq FROM _synchro_pending WHERE seq > ? AND operation != '__drop' ORDER BY seq")
        var highest = watermark
        var groups: [Int: [(table: String, id: String)]] = [:]
        var current: (table: String, rank: Int)?
        let rows = try Row.fetchCursor(select, arguments: [watermark])
        while let row = try rows.next() {
            let table: String = row[0]
            if current?.table != table { current = (table, rank[table] ?? 0) }
            groups[current?.rank ?? 0, default: []].append((table, row[1]))
            highest = max(highest, row[2])
        }
        return (groups.keys.sorted().flatMap { groups[$0] ?? [] }, highest)
    }

    /// The changes of `keys` as they stand now, marked in flight, with each record's full
    /// local row as its data. Records whose pending row is gone (a create and a delete
    /// cancelled out) are skipped; a table no longer synced drops its pending rows.
    ///
    /// The changes ``readAhead(_:schema:in:)`` read for `keys` are taken where the record has
    /// not changed since: the same seq (no tracked write) and the same stored values (no write
    /// under the sync lock, such as a cascade from a settled parent). Any other record is read
    /// again here, so the result is what reading everything now would give. The change log is
    /// folded first: a record written since the read ahead has a new seq.
    ///
    /// The stored values are compared only when the database has an app's trigger. Under the
    /// sync lock this client writes only records that are not in the batch (those settled,
    /// rejected or pulled: a pulled record with a pending change is skipped), so a row read
    /// ahead can change without a new seq only through a trigger that one of those writes
    /// fires. Reading every row again was most of marking a batch in flight (77 ms of client
    /// CPU for a push of 10,000 records before, 11–16 ms after, in `perf`).
    static func prepare(
        _ keys: ArraySlice<(table: String, id: String)>,
        readAhead: [ReadAheadChange?],
        schema: LocalSchema,
        in db: Database
    ) throws -> [OutgoingChange] {
        try ChangeLog.fold(in: db)
        var outgoing: [OutgoingChange] = []
        var selects: [String: String] = [:]
        func early(_ position: Int) -> ReadAheadChange? { position < readAhead.count ? readAhead[position] : nil }
        // The rows the read ahead checks, and everything of the records it did not read.
        let unread = keys.enumerated().filter { early($0.offset) == nil }.map(\.element)
        let rowsMayHaveMoved = try !readAhead.isEmpty && !WriteOrder.tablesWithAppTriggers(in: db).isEmpty
        let checked = !rowsMayHaveMoved ? [] : readAhead.compactMap { $0 }.filter { $0.stored != nil }.map { ($0.outgoing.pending.table, $0.outgoing.pending.recordID) }
        let batch = try BatchRead(pendingRows: unread, localRows: checked + unread, schema: schema, in: db)
        for (position, key) in keys.enumerated() {
            if let early = early(position),
                try stillStands(early, comparingRows: rowsMayHaveMoved, schema: schema, batch: batch, selects: &selects, in: db)
            {
                outgoing.append(early.outgoing)
                continue
            }
            switch try read(key, schema: schema, batch: batch, selects: &selects, in: db) {
            case .missing:
                continue
            case .unsendable(let pending):
                try remove(pending, in: db)
            case .ready(let change, _):
                // Read in this transaction: its seq is the one stored.
                _ = try markInFlight(change.pending, in: db)
                outgoing.append(change)
            }
        }
        return outgoing
    }

    /// Whether `early` is still the record's change, marking it in flight if so; its row is
    /// compared with the one stored when `comparingRows`.
    private static func stillStands(
        _ early: ReadAheadChange,
        comparingRows: Bool,
        schema: LocalSchema,
        batch: BatchRead,
        selects: inout [String: String],
        in db: Database
    ) throws -> Bool {
        let pending = early.outgoing.pending
        if comparingRows, let stored = early.stored {
            guard let table = schema.table(pending.table) else { return false }
            guard try localValues(of: pending.recordID, in: table, batch: batch, selects: &selects, db: db) == stored else { return false }
        }
        return try markInFlight(pending, in: db)
    }

    /// Takes `changes` out of flight where the seq sent is still the one in flight: their push
    /// never reached the server.
    static func markNotInFlight(_ changes: [PendingChange], in db: Database) throws {
        let update = try db.cachedStatement(sql: "UPDATE _synchro_pending SET inflight_seq = NULL WHERE table_name = ? AND record_id = ? AND inflight_seq = ?")
        for pending in changes {
            try update.execute(binding: [pending.table.databaseValue, pending.recordID.databaseValue, pending.seq.databaseValue])
        }
    }

    /// Marks `pending` in flight if its record still has the seq read; whether it had.
    private static func markInFlight(_ pending: PendingChange, in db: Database) throws -> Bool {
        try db.cachedStatement(sql: "UPDATE _synchro_pending SET inflight_seq = seq WHERE table_name = ? AND record_id = ? AND seq = ?")
            .execute(binding: [pending.table.databaseValue, pending.recordID.databaseValue, pending.seq.databaseValue])
        return db.changesCount == 1
    }

    /// The changes of `keys` as they stand now, without marking anything: read while the
    /// previous batch is on the wire, then handed to ``prepare(_:readAhead:schema:in:)``. Nil
    /// where the record needs a write to settle (its pending row must go) or has no change.
    static func readAhead(_ keys: ArraySlice<(table: String, id: String)>, schema: LocalSchema, in db: Database) throws -> [ReadAheadChange?] {
        var selects: [String: String] = [:]
        let batch = try BatchRead(pendingRows: Array(keys), localRows: Array(keys), schema: schema, in: db)
        return try keys.map { key in
            guard case .ready(let change, let stored) = try read(key, schema: schema, batch: batch, selects: &selects, in: db) else { return nil }
            return ReadAheadChange(outgoing: change, stored: stored)
        }
    }

    /// A record's pending change, read.
    private enum Read {
        /// No pending row (a create and a delete cancelled out).
        case missing
        /// A pending row that cannot be sent and must be dropped: its table is no longer synced,
        /// its operation unknown, or its local row gone without a trigger (a table rebuilt by
        /// the app).
        case unsendable(PendingChange)
        /// The change, and the stored values of the local row it was made from.
        case ready(OutgoingChange, stored: [DatabaseValue]?)
    }

    private static func read(
        _ key: (table: String, id: String),
        schema: LocalSchema,
        batch: BatchRead,
        selects: inout [String: String],
        in db: Database
    ) throws -> Read {
        guard let pending = try batch.pendingChange(key) ?? pendingChange(key, in: db) else { return .missing }
        guard let table = schema.table(pending.table), let operation = PushOperation.known(pending.operation) else {
            return .unsendable(pending)
        }
        var data: [String: JSONValue]?
        var stored: [DatabaseValue]?
        if operation != .delete {
            guard let values = try localValues(of: pending.recordID, in: table, batch: batch, selects: &selects, db: db) else { return .unsendable(pending) }
            stored = values
            data = pushData(values, in: table)
        }
        let change = PushChange(
            id: pending.recordID,
            tableName: pending.table,
            operation: operation,
            data: data,
            clientUpdatedAt: pending.clientUpdatedAt,
            baseUpdatedAt: pending.base
        )
        return .ready(OutgoingChange(pending: pending, change: change), stored: stored)
    }

    /// A record's pending change, read alone.
    private static func pendingChange(_ key: (table: String, id: String), in db: Database) throws -> PendingChange? {
        let select = try db.cachedStatement(sql: "SELECT * FROM _synchro_pending WHERE table_name = ? AND record_id = ?")
        try select.bind([key.table.databaseValue, key.id.databaseValue])
        guard let row = try Row.fetchOne(select) else { return nil }
        return PendingChange(
            table: row["table_name"],
            recordID: row["record_id"],
            operation: row["operation"],
            base: row["base_updated_at"],
            clientUpdatedAt: row["client_updated_at"],
            seq: row["seq"],
            sentBefore: (row["inflight_seq"] as Int64?) != nil
        )
    }

    /// The local row's values from `batch`, or read alone when it does not have them.
    private static func localValues(of id: String, in table: LocalTable, batch: BatchRead, selects: inout [String: String], db: Database) throws -> [DatabaseValue]? {
        if let values = batch.localValues(of: id, in: table.name) { return values }
        let sql = selects[table.name] ?? localRowSQL(table)
        selects[table.name] = sql
        return try localValues(of: id, in: table, sql: sql, db: db)
    }

    /// The select ``localValues(of:in:sql:db:)`` runs: the synced columns by position, in the
    /// table's order (looking each up by name in a `SELECT *` row was half of preparing a push).
    static func localRowSQL(_ table: LocalTable) -> String {
        let names = table.columns.map(\.name.quotedDatabaseIdentifier).joined(separator: ", ")
        return "SELECT \(names) FROM \(table.name.quotedDatabaseIdentifier) WHERE \(table.primaryKey.quotedDatabaseIdentifier) = ?"
    }

    /// The local row's stored values, in the table's column order.
    static func localValues(of id: String, in table: LocalTable, sql: String, db: Database) throws -> [DatabaseValue]? {
        let select = try db.cachedStatement(sql: sql)
        try select.bind([id.databaseValue])
        guard let row = try Row.fetchOne(select) else { return nil }
        return (0..<table.columns.count).map { row[$0] }
    }

    /// The local row as push data: every synced column by its logical type, the key (and a
    /// text parent key) in lower case, as the server keeps ids.
    static func pushData(_ values: [DatabaseValue], in table: LocalTable) -> [String: JSONValue] {
        var data: [String: JSONValue] = Dictionary(minimumCapacity: table.columns.count)
        for (column, stored) in zip(table.columns, values) {
            var value = ValueConversion.json(stored, as: column.logicalType)
            if column.name == table.primaryKey || column.name == table.parentKey, let text = value.stringValue {
                value = .string(text.lowercased())
            }
            data[column.name] = value
        }
        return data
    }

    /// Removes `pending` if its record still has the seq read (no edit since); whether it did.
    static func removeIfUnchanged(_ pending: PendingChange, in db: Database) throws -> Bool {
        try db.cachedStatement(sql: "DELETE FROM _synchro_pending WHERE table_name = ? AND record_id = ? AND seq = ?")
            .execute(binding: [pending.table.databaseValue, pending.recordID.databaseValue, pending.seq.databaseValue])
        return db.changesCount == 1
    }

    static func remove(_ pending: PendingChange, in db: Database) throws {
        try db.cachedStatement(sql: "DELETE FROM _synchro_pending WHERE table_name = ? AND record_id = ?")
            .execute(binding: [pending.table.databaseValue, pending.recordID.databaseValue])
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

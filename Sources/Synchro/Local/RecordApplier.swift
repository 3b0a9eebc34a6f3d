import Foundation
import GRDB
import GRDBBinding

/// Writes the server's records into the local tables. Run inside a write transaction with
/// the sync lock held (``MetaStore/withSyncLock(_:_:)``), so nothing it writes is taken for
/// a local change.
///
/// A pulled record never overwrites a record with a pending local change, nor a local row
/// whose `updated_at` is after the server's. The reference client also skips a record whose
/// `updated_at` equals the local one — the echo of this client's own push — and so never
/// learns what the server changed in it (an owner column forced to the caller, defaults
/// filled in); here the echo is applied, and a pending change is what protects local edits.
/// Conflicts the server settled are applied whatever the local row says.
struct RecordApplier {
    let schema: LocalSchema
    private var plans: [String: TablePlan] = [:]

    /// What writing a row of one table takes, worked out once: its statements, and where each
    /// column's value comes from.
    private struct TablePlan {
        /// The merge for the rows of a `VALUES` list.
        var merge: @Sendable (_ rows: String) -> String
        /// The overwrite for the rows of a `VALUES` list.
        var overwrite: @Sendable (_ rows: String) -> String
        var delete: String
        var sources: [ValueSource]
    }

    /// Where a column's value comes from, in the table's column order.
    private enum ValueSource {
        case updatedAt
        case deletedAt
        /// The data's value, else the record's own id.
        case key(String, LogicalType)
        /// The data's value by its logical type, else NULL.
        case data(String, LogicalType)
    }

    init(schema: LocalSchema) {
        self.schema = schema
        for table in schema.tables {
            let sql = Self.statements(for: table)
            let sources = table.columns.map { column -> ValueSource in
                switch column.name {
                case table.updatedAt: .updatedAt
                case table.deletedAt: .deletedAt
                case table.primaryKey: .key(column.name, column.logicalType)
                default: .data(column.name, column.logicalType)
                }
            }
            plans[table.name] = TablePlan(merge: sql.merge, overwrite: sql.overwrite, delete: sql.delete, sources: sources)
        }
    }

    /// Merges pulled or snapshot records in the transaction of `db`, many rows to a
    /// statement (``MultiRowStatement``). Call ``Merger/flush()`` before anything else reads or
    /// writes the synced tables, and at the end.
    func merger(in db: Database) -> Merger {
        Merger(applier: self, db: db, overwriting: false)
    }

    /// Writes the server's versions over the local rows (changes it applied or settled), in
    /// the transaction of `db`, many rows to a statement, whatever the local rows hold; flushed
    /// as a ``merger(in:)`` is.
    func overwriter(in db: Database) -> Merger {
        Merger(applier: self, db: db, overwriting: true)
    }

    /// Merges `records` in the transaction of `db`, a whole page of them, in ``WriteOrder``.
    func merge(_ records: [SyncRecord], in db: Database) throws {
        var merger = merger(in: db)
        for index in try WriteOrder.positions(of: records, in: db, key: { (table: $0.tableName, id: $0.id) }) {
            try merger.write(records[index])
        }
        try merger.flush()
    }

    /// ``RecordApplier/merger(in:)``: for the transaction it was made in only.
    ///
    /// Records are written in the order given: a record of another table than the previous
    /// one first writes those waiting (an app's trigger on one table may read another).
    struct Merger {
        let applier: RecordApplier
        let db: Database
        /// Per table, its rows waiting; those of `waitingTable` only hold any.
        private var writers: [String: MultiRowStatement] = [:]
        private var waitingTable: String?
        /// Per table: the statement that asks whether a record has a pending change, or nil
        /// when the table had none as the transaction began (the sync lock keeps it so).
        private var pendingChecks: [String: Statement?] = [:]
        /// Whether records overwrite the local rows rather than merge into them.
        private let overwriting: Bool

        init(applier: RecordApplier, db: Database, overwriting: Bool) {
            self.applier = applier
            self.db = db
            self.overwriting = overwriting
        }

        /// Upserts `record` (at the latest at ``flush()``): for a merger, unless a pending
        /// change or a newer local row keeps it out. Records of tables the client does not
        /// sync are skipped.
        mutating func write(_ record: SyncRecord) throws {
            guard let plan = applier.plans[record.tableName] else { return }
            if !overwriting, try hasPendingChange(table: record.tableName, id: record.id) { return }
            if waitingTable != record.tableName {
                try flush()
                waitingTable = record.tableName
            }
            let db = db
            let sql = overwriting ? plan.overwrite : plan.merge
            try writers[record.tableName, default: MultiRowStatement(columnCount: plan.sources.count, in: db, sql: sql)].appendRow { values in
                RecordApplier.append(record, from: plan.sources, to: &values)
            }
        }

        /// Writes the records waiting.
        mutating func flush() throws {
            guard let table = waitingTable else { return }
            waitingTable = nil
            try writers[table]?.flush()
        }

        /// Whether a local change waits for the record `id` (in any case). The check is a
        /// statement of its own: in the upsert (`INSERT … SELECT … WHERE NOT EXISTS`) it made
        /// SQLite, because the table has triggers, stage every row in a temporary table of its
        /// own: two fifths of the upsert's instructions, a quarter of applying a protocol-2 page.
        private mutating func hasPendingChange(table: String, id: String) throws -> Bool {
            let check: Statement?
            if let known = pendingChecks[table] {
                check = known
            } else {
                let any = try Bool.fetchOne(db, sql: "SELECT EXISTS (SELECT 1 FROM _synchro_pending WHERE table_name = ?)", arguments: [table]) ?? true
                check = any ? try db.cachedStatement(sql: "SELECT 1 FROM _synchro_pending WHERE table_name = ? AND record_id = ?") : nil
                pendingChecks[table] = check
            }
            guard let check else { return false }
            return try Bool.fetchOne(check, arguments: [table, id.lowercased()]) ?? false
        }
    }

    /// Marks a record the server deleted as deleted, unless a pending change keeps it.
    func markDeleted(table name: String, id: String, at timestamp: String, in db: Database) throws {
        guard let plan = plans[name] else { return }
        try db.cachedStatement(sql: plan.delete).execute(binding: [timestamp.databaseValue, id.databaseValue, id.lowercased().databaseValue])
    }

    /// Removes every row of the synced tables but those with pending changes: the start of
    /// a snapshot rebuild (the snapshot then brings back everything the server has).
    func clearForSnapshot(in db: Database) throws {
        for table in schema.tables {
            try db.execute(
                sql: "DELETE FROM \(table.name.quotedDatabaseIdentifier) WHERE lower(\(table.primaryKey.quotedDatabaseIdentifier)) "
                    + "NOT IN (SELECT record_id FROM _synchro_pending WHERE table_name = ?)",
                arguments: [table.name]
            )
        }
    }

    /// The column values of `record`, in the table's column order, appended to `values`: the
    /// data by logical type, the record's own id, `updated_at` and `deleted_at` where the data
    /// lacks them.
    private static func append(_ record: SyncRecord, from sources: [ValueSource], to values: inout [DatabaseValue]) {
        for source in sources {
            switch source {
            case .updatedAt: values.append(record.updatedAt.databaseValue)
            case .deletedAt: values.append(record.deletedAt?.databaseValue ?? .null)
            case .key(let name, let type): values.append(record.data[name].map { ValueConversion.databaseValue($0, as: type) } ?? record.id.databaseValue)
            case .data(let name, let type): values.append(record.data[name].map { ValueConversion.databaseValue($0, as: type) } ?? .null)
            }
        }
    }

    private static func statements(for table: LocalTable) -> (merge: @Sendable (String) -> String, overwrite: @Sendable (String) -> String, delete: String) {
        let name = table.name.quotedDatabaseIdentifier
        let key = table.primaryKey.quotedDatabaseIdentifier
        let updated = table.updatedAt.quotedDatabaseIdentifier
        let columns = table.columns.map(\.name.quotedDatabaseIdentifier)
        // The key too: it compares without case, and taking the server's spelling (a UUID in
        // lower case where the app wrote `UUID().uuidString`) makes a join on a child's parent
        // key — which the server also writes in its own spelling, and which protocol 2 does not
        // say is a key — find the row.
        let set = table.columns.map { "\($0.name.quotedDatabaseIdentifier) = excluded.\($0.name.quotedDatabaseIdentifier)" }.joined(separator: ", ")
        let noPending = "NOT EXISTS (SELECT 1 FROM _synchro_pending WHERE table_name = \(table.name.quotedLiteral) AND record_id = ?)"
        // A row equal to the local one (the echo of this device's own push, a page pulled
        // again) is not written at all: no page dirtied, no observer woken. The key compares
        // byte for byte, so a new spelling of it is still taken.
        let differs = table.columns.map { (column) -> String in
            let quoted = column.name.quotedDatabaseIdentifier
            let binary = column.name == table.primaryKey ? " COLLATE BINARY" : ""
            return "\(name).\(quoted) IS NOT excluded.\(quoted)\(binary)"
        }.joined(separator: " OR ")
        let merge = { @Sendable (rows: String) in
            """
            INSERT INTO \(name) (\(columns.joined(separator: ", "))) VALUES \(rows)
            ON CONFLICT (\(key)) DO UPDATE SET \(set)
            WHERE (\(differs)) AND COALESCE(synchro_time(\(name).\(updated)) <= synchro_time(excluded.\(updated)), 1)
            """
        }
        let overwrite = { @Sendable (rows: String) in
            """
            INSERT INTO \(name) (\(columns.joined(separator: ", "))) VALUES \(rows)
            ON CONFLICT (\(key)) DO UPDATE SET \(set)
            """
        }
        let delete = """
            UPDATE \(name) SET \(table.deletedAt.quotedDatabaseIdentifier) = ?
            WHERE \(key) = ? AND \(table.deletedAt.quotedDatabaseIdentifier) IS NULL AND \(noPending)
            """
        return (merge, overwrite, delete)
    }
}

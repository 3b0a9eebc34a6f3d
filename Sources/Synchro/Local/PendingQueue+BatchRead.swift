import GRDB
import GRDBBinding

extension PendingQueue {
    /// The pending rows and local rows of a batch of records, read a few hundred keys per
    /// statement. Reading them one statement per record was most of the cost of reading a batch
    /// ahead and of checking it before it is sent: GRDB's cursor, row copy and release for each
    /// record cost more than SQLite's lookups.
    ///
    /// Only a shortcut: a record it did not find is read alone, so the answers are what reading
    /// each record alone gives (say, for a key SQLite matched only by converting it, or a
    /// pending row gone since).
    struct BatchRead {
        /// How many keys one statement lists: under SQLite's smallest limit on parameters (999
        /// before 3.32), with few statements per batch.
        static let keysPerStatement = 500

        /// table → record id as stored in `_synchro_pending` → its pending change.
        private var pending: [String: [String: PendingChange]] = [:]
        /// table → lower-cased key → the local row's values in the table's column order.
        private var values: [String: [String: [DatabaseValue]]] = [:]

        /// Reads the pending rows of `keys` (when `pendingRows`) and the local rows of
        /// `rowKeys`.
        init(
            pendingRows keys: [(table: String, id: String)],
            localRows rowKeys: [(table: String, id: String)],
            schema: LocalSchema,
            in db: Database
        ) throws {
            for (name, ids) in Self.grouped(keys) {
                var found: [String: PendingChange] = Dictionary(minimumCapacity: ids.count)
                for chunk in Self.chunks(ids) {
                    let select = try db.cachedStatement(
                        sql: "SELECT table_name, record_id, operation, base_updated_at, client_updated_at, seq FROM _synchro_pending "
                            + "WHERE table_name = ? AND record_id IN (\(databaseQuestionMarks(count: chunk.count)))"
                    )
                    try select.bind([name.databaseValue] + chunk.map(\.databaseValue))
                    let rows = try Row.fetchCursor(select)
                    while let row = try rows.next() {
                        let change = PendingChange(
                            table: row[0],
                            recordID: row[1],
                            operation: row[2],
                            base: row[3],
                            clientUpdatedAt: row[4],
                            seq: row[5]
                        )
                        found[change.recordID] = change
                    }
                }
                pending[name] = found
            }
            for (name, ids) in Self.grouped(rowKeys) {
                guard let table = schema.table(name), let keyIndex = table.columns.firstIndex(where: { $0.name == table.primaryKey }) else { continue }
                var found: [String: [DatabaseValue]] = Dictionary(minimumCapacity: ids.count)
                let columns = table.columns.map(\.name.quotedDatabaseIdentifier).joined(separator: ", ")
                for chunk in Self.chunks(ids) {
                    let select = try db.cachedStatement(
                        sql: "SELECT \(columns) FROM \(table.name.quotedDatabaseIdentifier) "
                            + "WHERE \(table.primaryKey.quotedDatabaseIdentifier) IN (\(databaseQuestionMarks(count: chunk.count)))"
                    )
                    try select.bind(chunk.map(\.databaseValue))
                    let rows = try Row.fetchCursor(select)
                    while let row = try rows.next() {
                        let stored = (0..<table.columns.count).map { row[$0] as DatabaseValue }
                        // Keyed as `WHERE key = ?` matched the id: text keys without case (they
                        // are `COLLATE NOCASE`), integer keys by their decimal text.
                        switch stored[keyIndex].storage {
                        case .string(let text): found[text.lowercased()] = stored
                        case .int64(let integer): found[String(integer)] = stored
                        default: continue
                        }
                    }
                }
                values[name] = found
            }
        }

        /// The pending change of `key`, if this batch read it.
        func pendingChange(_ key: (table: String, id: String)) -> PendingChange? {
            pending[key.table]?[key.id]
        }

        /// The local row's values of `id` in `table`, if this batch read them.
        func localValues(of id: String, in table: String) -> [DatabaseValue]? {
            values[table]?[id.lowercased()]
        }

        /// The ids of `keys` by table, each table's in their order, without repeats.
        private static func grouped(_ keys: [(table: String, id: String)]) -> [(table: String, ids: [String])] {
            var order: [String] = []
            var ids: [String: [String]] = [:]
            var seen: Set<String> = []
            for key in keys where seen.insert(key.table + "\u{0}" + key.id).inserted {
                if ids[key.table] == nil { order.append(key.table) }
                ids[key.table, default: []].append(key.id)
            }
            return order.map { ($0, ids[$0] ?? []) }
        }

        private static func chunks(_ ids: [String]) -> [ArraySlice<String>] {
            stride(from: 0, to: ids.count, by: keysPerStatement).map { ids[$0..<min($0 + keysPerStatement, ids.count)] }
        }
    }
}

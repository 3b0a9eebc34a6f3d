import GRDB
import GRDBBinding

extension PendingQueue {
    /// The pending rows and local rows of a batch of records, read a few hundred keys per
    /// statement. Reading them one statement per record was most of the cost of reading a batch
    /// ahead and of checking it before it is sent: GRDB's cursor, row copy and release for each
    /// record cost more than SQLite's lookups.
    ///
    /// Each key is joined to its table by SQLite itself (`t.key = k.id`, over a list of the
    /// keys with their positions), so a key finds exactly the row `WHERE key = ?` finds: with
    /// the column's collation (ASCII letters only, for `NOCASE`), its affinity (`'05'` finds the
    /// integer 5), and byte for byte otherwise. The answers are then kept by the key as sent,
    /// byte for byte: Swift's `String` would take the composed and decomposed forms of `é`, or
    /// `É` and `é` once lower-cased, for one record. A record not found is still read alone by
    /// the callers (a pending row gone since, say), so the answers are what reading each record
    /// alone gives.
    struct BatchRead {
        /// A key as sent, byte for byte. Compared and hashed in the strings' own UTF-8 storage:
        /// copying each key into an array of bytes, then hashing it a byte at a time, was a sixth
        /// of reading a batch.
        private struct ExactKey: Hashable {
            let table: String
            let id: String

            init(_ table: String, _ id: String) {
                (self.table, self.id) = (table, id)
            }

            static func == (lhs: ExactKey, rhs: ExactKey) -> Bool {
                sameBytes(lhs.id, rhs.id) && sameBytes(lhs.table, rhs.table)
            }

            func hash(into hasher: inout Hasher) {
                Self.combine(table, into: &hasher)
                hasher.combine(UInt8(0))
                Self.combine(id, into: &hasher)
            }

            private static func sameBytes(_ lhs: String, _ rhs: String) -> Bool {
                let fast = lhs.utf8.withContiguousStorageIfAvailable { left in
                    rhs.utf8.withContiguousStorageIfAvailable { right in left.elementsEqual(right) }
                }
                return (fast ?? nil) ?? lhs.utf8.elementsEqual(rhs.utf8)
            }

            /// The bytes of `text` as one block (a string without contiguous UTF-8 is copied
            /// first, so equal bytes always hash alike).
            private static func combine(_ text: String, into hasher: inout Hasher) {
                let done: Void? = text.utf8.withContiguousStorageIfAvailable { hasher.combine(bytes: UnsafeRawBufferPointer($0)) }
                if done == nil { Array(text.utf8).withUnsafeBytes { hasher.combine(bytes: $0) } }
            }
        }

        private var pending: [ExactKey: PendingChange] = [:]
        /// The local row's values in the table's column order.
        private var values: [ExactKey: [DatabaseValue]] = [:]

        /// Reads the pending rows of `keys` and the local rows of `rowKeys`.
        init(
            pendingRows keys: [(table: String, id: String)],
            localRows rowKeys: [(table: String, id: String)],
            schema: LocalSchema,
            in db: Database
        ) throws {
            for (name, ids) in Self.grouped(keys) {
                try Self.join(
                    ids,
                    to: "SELECT k.i, t.table_name, t.record_id, t.operation, t.base_updated_at, t.client_updated_at, t.seq, "
                        + "t.inflight_seq IS NOT NULL FROM k JOIN _synchro_pending AS t ON t.table_name = ? AND t.record_id = k.id",
                    arguments: [name.databaseValue],
                    in: db
                ) { id, row in
                    pending[ExactKey(name, id)] = PendingChange(
                        table: row[1],
                        recordID: row[2],
                        operation: row[3],
                        base: row[4],
                        clientUpdatedAt: row[5],
                        seq: row[6],
                        sentBefore: row[7]
                    )
                }
            }
            for (name, ids) in Self.grouped(rowKeys) {
                guard let table = schema.table(name) else { continue }
                let columns = table.columns.map { "t." + $0.name.quotedDatabaseIdentifier }.joined(separator: ", ")
                try Self.join(
                    ids,
                    to: "SELECT k.i, \(columns) FROM k JOIN \(table.name.quotedDatabaseIdentifier) AS t "
                        + "ON t.\(table.primaryKey.quotedDatabaseIdentifier) = k.id",
                    arguments: [],
                    in: db
                ) { id, row in
                    values[ExactKey(name, id)] = (0..<table.columns.count).map { row[$0 + 1] as DatabaseValue }
                }
            }
        }

        /// The pending change of `key`, if this batch read it.
        func pendingChange(_ key: (table: String, id: String)) -> PendingChange? {
            pending[ExactKey(key.table, key.id)]
        }

        /// The local row's values of `id` in `table`, if this batch read them.
        func localValues(of id: String, in table: String) -> [DatabaseValue]? {
            values[ExactKey(table, id)]
        }

        /// Runs `select` (over `k(i, id)`, the keys with their positions, and `arguments`) a
        /// chunk of `ids` at a time, handing each row to `body` with the id at its position.
        /// The list is padded (``KeyList/paddedCount(_:)``).
        private static func join(
            _ ids: [String],
            to select: String,
            arguments: [DatabaseValue],
            in db: Database,
            body: (String, Row) throws -> Void
        ) throws {
            for chunk in KeyList.chunks(ids) {
                let size = KeyList.paddedCount(chunk.count)
                let statement = try db.cachedStatement(sql: "WITH k(i, id) AS (VALUES \(KeyList.numberedPlaces(size))) " + select)
                try statement.bind(chunk.map(\.databaseValue) + Array(repeating: .null, count: size - chunk.count) + arguments)
                let rows = try Row.fetchCursor(statement)
                while let row = try rows.next() {
                    let position: Int = row[0]
                    guard position < chunk.count else { continue }
                    try body(chunk[chunk.startIndex + position], row)
                }
            }
        }

        /// The ids of `keys` by table, each table's in their order, each key once (byte for
        /// byte).
        private static func grouped(_ keys: [(table: String, id: String)]) -> [(table: String, ids: [String])] {
            var order: [String] = []
            var ids: [String: [String]] = [:]
            var seen: Set<ExactKey> = []
            for key in keys where seen.insert(ExactKey(key.table, key.id)).inserted {
                if ids[key.table] == nil { order.append(key.table) }
                ids[key.table, default: []].append(key.id)
            }
            return order.map { ($0, ids[$0] ?? []) }
        }
    }
}

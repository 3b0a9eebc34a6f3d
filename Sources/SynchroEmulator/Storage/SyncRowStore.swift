import EmulatorSupport
import GRDB
import GRDBBinding

/// Reads and writes the rows of synced tables. Identifiers are quoted; values are bound.
/// Per-change statements are cached: a push of 1,000 changes spent most of its time
/// compiling them.
package enum SyncRowStore {
    /// The text of a table's per-row statements, built once with the table: building it again
    /// for every row, only to find the cached statement, was a fifth of a push.
    struct SQL: Sendable {
        /// `_synchro_owner` and every column, in spec order: what ``storedRow(_:_:)`` reads.
        let selection: String
        let find: String
        /// The insert of `_synchro_owner` and every column in spec order.
        let insert: String
        /// ``insert`` that does nothing when a row has the key.
        let insertIfAbsent: String
        /// The selection of the rows whose key is in a list, up to the list's places and `)`.
        let findAll: String

        init(storageName: String, primaryKey: String, columns: [SyncColumn]) {
            let names = ["_synchro_owner"] + columns.map { SQLIdentifier.quote($0.name) }
            let table = SQLIdentifier.quote(storageName)
            selection = names.joined(separator: ", ")
            find = "SELECT \(selection) FROM \(table) WHERE \(SQLIdentifier.quote(primaryKey)) = ?"
            insert = "INSERT INTO \(table) (\(selection)) VALUES (\(databaseQuestionMarks(count: names.count)))"
            insertIfAbsent = insert + " ON CONFLICT (\(SQLIdentifier.quote(primaryKey))) DO NOTHING"
            findAll = "SELECT \(selection) FROM \(table) WHERE \(SQLIdentifier.quote(primaryKey)) IN ("
        }
    }

    package static func find(_ table: SyncTable, id: String, in db: Database) throws -> StoredRow? {
        let select = try db.cachedStatement(sql: table.rowSQL.find)
        try select.bind([id.databaseValue])
        return try Row.fetchOne(select).map { storedRow($0, table) }
    }

    /// The rows of `ids` that exist, by id: ``find(_:id:in:)`` for a page of records, a few
    /// hundred keys per statement (one statement per row was over half of building a pull page's
    /// changes).
    static func findAll(_ table: SyncTable, ids: [String], in db: Database) throws -> [String: StoredRow] {
        var rows: [String: StoredRow] = [:]
        rows.reserveCapacity(ids.count)
        try forEachRow(table, ids: ids, in: db) { key, row in rows[key] = storedRow(row, table) }
        return rows
    }

    /// Calls `body` with each row of `ids` that exists (the owner, then every column in spec
    /// order) and its stored key as text — which is what `WHERE key = ?` matched with an id: an
    /// integer key too. A few hundred keys per statement.
    static func forEachRow(_ table: SyncTable, ids: [String], in db: Database, _ body: (_ key: String, _ row: Row) throws -> Void) throws {
        guard let keyIndex = table.columns.firstIndex(where: { $0.name == table.primaryKey }) else { return }
        for chunk in KeyList.chunks(ids) {
            let size = KeyList.paddedCount(chunk.count)
            let select = try db.cachedStatement(sql: table.rowSQL.findAll + KeyList.places(size) + ")")
            try select.bind(chunk.map(\.databaseValue) + Array(repeating: .null, count: size - chunk.count))
            let cursor = try Row.fetchCursor(select)
            while let row = try cursor.next() {
                switch (row[keyIndex + 1] as DatabaseValue).storage {
                case .string(let text): try body(text, row)
                case .int64(let integer): try body(String(integer), row)
                default: continue
                }
            }
        }
    }

    /// The owner's live (not soft-deleted) rows with a key after `afterID`, by key.
    static func livePage(_ table: SyncTable, owner: String, after afterID: String, limit: Int, in db: Database) throws -> [StoredRow] {
        let key = SQLIdentifier.quote(table.primaryKey)
        return try Row.fetchAll(
            db,
            sql: """
                SELECT \(table.rowSQL.selection) FROM \(SQLIdentifier.quote(table.storageName))
                WHERE _synchro_owner = ? AND \(SQLIdentifier.quote(table.deletedAtColumn)) IS NULL AND \(key) > ?
                ORDER BY \(key) LIMIT ?
                """,
            arguments: [owner, afterID, limit]
        ).map { storedRow($0, table) }
    }

    /// Rows of `owner` (every owner when nil), soft-deleted ones only when asked.
    package static func count(_ table: SyncTable, owner: String?, includeDeleted: Bool, in db: Database) throws -> Int {
        var conditions: [String] = []
        var arguments: StatementArguments = []
        if let owner {
            conditions.append("_synchro_owner = ?")
            arguments += [owner]
        }
        if !includeDeleted {
            conditions.append("\(SQLIdentifier.quote(table.deletedAtColumn)) IS NULL")
        }
        let filter = conditions.isEmpty ? "" : " WHERE " + conditions.joined(separator: " AND ")
        return try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM \(SQLIdentifier.quote(table.storageName))\(filter)", arguments: arguments) ?? 0
    }

    /// Inserts a row. When `values` lists every column in spec order (as a push does), returns
    /// the row as ``find(_:id:in:)`` would read it back: values are stored in their column's own
    /// storage class (``SyncValueCoding/storable(_:for:)``), so SQLite's affinity changes none
    /// of them. Otherwise returns nil.
    @discardableResult
    static func insert(_ table: SyncTable, owner: String, values: [(column: String, value: DatabaseValue)], in db: Database) throws -> StoredRow? {
        let arguments = [owner.databaseValue] + values.map(\.value)
        // Pushes list every column in spec order: the statement built with the table.
        if listsEveryColumnInOrder(values, table) {
            try db.cachedStatement(sql: table.rowSQL.insert).execute(binding: arguments)
            return decode(owner: owner, table) { values[$0].value }
        }
        let names = ["_synchro_owner"] + values.map { SQLIdentifier.quote($0.column) }
        try db.cachedStatement(
            sql: "INSERT INTO \(SQLIdentifier.quote(table.storageName)) (\(names.joined(separator: ", "))) VALUES (\(databaseQuestionMarks(count: names.count)))"
        ).execute(binding: arguments)
        return nil
    }

    /// Inserts a row unless one has its key: the row as ``find(_:id:in:)`` would read it back,
    /// or nil when the key was taken (nothing written). `values` lists every column in spec
    /// order.
    static func insertIfAbsent(_ table: SyncTable, owner: String, values: [(column: String, value: DatabaseValue)], in db: Database) throws -> StoredRow? {
        guard listsEveryColumnInOrder(values, table) else {
            throw DatabaseError(message: "internal error: a new row of \(table.name) must list every column in spec order")
        }
        try db.cachedStatement(sql: table.rowSQL.insertIfAbsent).execute(binding: [owner.databaseValue] + values.map(\.value))
        guard db.changesCount == 1 else { return nil }
        return decode(owner: owner, table) { values[$0].value }
    }

    private static func listsEveryColumnInOrder(_ values: [(column: String, value: DatabaseValue)], _ table: SyncTable) -> Bool {
        values.count == table.columns.count && zip(values, table.columns).allSatisfy { $0.column == $1.name }
    }

    static func update(_ table: SyncTable, id: String, values: [(column: String, value: DatabaseValue)], in db: Database) throws {
        guard !values.isEmpty else { return }
        let assignments = values.map { "\(SQLIdentifier.quote($0.column)) = ?" }.joined(separator: ", ")
        try db.cachedStatement(
            sql: "UPDATE \(SQLIdentifier.quote(table.storageName)) SET \(assignments) WHERE \(SQLIdentifier.quote(table.primaryKey)) = ?"
        ).execute(binding: values.map(\.value) + [id.databaseValue])
    }

    /// A row of ``SQL/selection`` (the owner, then every column in spec order).
    static func storedRow(_ row: Row, _ table: SyncTable) -> StoredRow {
        decode(owner: row[0], table) { row[$0 + 1] }
    }

    /// A stored row from its owner and the value of each column by position.
    private static func decode(owner: String, _ table: SyncTable, value: (Int) -> DatabaseValue) -> StoredRow {
        var data = JSONObject()
        for (index, column) in table.columns.enumerated() {
            data[column.name] = SyncValueCoding.json(value(index), for: column)
        }
        let id = data[table.primaryKey]?.stringValue ?? ""
        return StoredRow(
            id: id,
            owner: owner,
            data: data,
            updatedAt: data[table.updatedAtColumn]?.stringValue.flatMap(SyncTimestamp.init(parsing:)),
            deletedAt: data[table.deletedAtColumn]?.stringValue.flatMap(SyncTimestamp.init(parsing:))
        )
    }
}

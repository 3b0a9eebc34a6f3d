import EmulatorSupport
import GRDB
import GRDBBinding

/// Which scopes each row belongs to, and the change log that records every move (§4.3, §4.4).
///
/// The spec's `sync:` keys stand for the real server's scope SQL: `owner: COLUMN` is
/// `SELECT ARRAY['user:' || COLUMN] …` (the value lower-cased, as the adapter lower-cases the
/// JWT's `sub`), `parent:` with `parentKey:` gives a row its parent row's scopes, to any depth,
/// `shared: NAME` puts every row in that shared scope, and `sql:` is a query of its own
/// (``ScopeQuery``), which may put a record in several scopes. A soft-deleted row belongs to no
/// scope.
///
/// As on the real server, a record's scopes are computed again only when the record itself
/// is written (or at start, by ``backfill(in:)``): a change to a row its query reads (a member
/// added to a document) moves the record the next time the record changes.
struct ScopeMembership {
    let schema: SyncSchema

    /// The scopes `row` of `table` belongs to now, sorted, without duplicates.
    func scopes(of row: StoredRow, in table: SyncTable, db: Database) throws -> [String] {
        guard !row.isDeleted else { return [] }
        var current = (table: table, row: row)
        // A parent chain longer than the number of tables is a cycle in the data.
        for _ in 0...schema.tables.count {
            switch current.table.scopeSource {
            case .owner(let owner):
                guard let value = current.row.data[owner]?.stringValue, !value.isEmpty else { return [] }
                return ["user:" + value.lowercased()]
            case .shared(let scope):
                return [scope]
            case .query(let query):
                return try query.scopes(forRecord: current.row.id, in: db)
            case .parent(let parentName, let key):
                guard let parentTable = schema.table(parentName), let parentID = current.row.data[key]?.stringValue,
                    let parent = try SyncRowStore.find(parentTable, id: parentID.lowercased(), in: db)
                else { return [] }
                current = (parentTable, parent)
            }
        }
        return []
    }

    /// Brings the memberships of the row `id` of `table` up to date after a write, appending
    /// a log entry per affected scope: `insert` for a scope gained, `update` for one kept,
    /// `delete` for one lost (a soft delete loses them all). Returns the scopes it is in now.
    @discardableResult
    func capture(_ table: SyncTable, id: String, in db: Database) throws -> [String] {
        let row = try SyncRowStore.find(table, id: id, in: db)
        return try capture(table, row: row, wire: row.map { Self.wireRow($0, table) }, id: id, in: db)
    }

    /// ``capture(_:id:in:)`` for a row already read (nil: it no longer exists), with its
    /// ``wireRow(_:_:)`` already made (a push answers with it too). `isNew`: the row was just
    /// inserted where none had its key, so it is in no scope yet (rows are never deleted, only
    /// soft-deleted, so no membership outlives its row) and its memberships are not read.
    /// Statements run once per pushed mutation, so they are cached.
    @discardableResult
    func capture(_ table: SyncTable, row: StoredRow?, wire: JSONValue?, id: String, isNew: Bool = false, in db: Database) throws -> [String] {
        let now = try row.map { try scopes(of: $0, in: table, db: db) } ?? []
        // A record is in a scope or two: an array, not a set, per write.
        var before: [String] = []
        if !isNew {
            let selectScopes = try db.cachedStatement(sql: "SELECT scope FROM _synchro2_memberships WHERE table_name = ? AND record_id = ?")
            try selectScopes.bind([table.name.databaseValue, id.databaseValue])
            before = try String.fetchAll(selectScopes)
        }
        let checksum = wire.map(RowChecksum.of)
        for scope in now {
            try db.cachedStatement(
                sql:
                    "INSERT INTO _synchro2_memberships (scope, table_name, record_id, checksum) VALUES (?, ?, ?, ?) ON CONFLICT(scope, table_name, record_id) DO UPDATE SET checksum = excluded.checksum"
            ).execute(binding: [scope.databaseValue, table.name.databaseValue, id.databaseValue, Int64(checksum ?? 0).databaseValue])
            try log(before.contains(scope) ? "update" : "insert", scope: scope, table: table.name, id: id, in: db)
        }
        for scope in before.filter({ !now.contains($0) }).sorted() {
            try db.cachedStatement(sql: "DELETE FROM _synchro2_memberships WHERE scope = ? AND table_name = ? AND record_id = ?")
                .execute(binding: [scope.databaseValue, table.name.databaseValue, id.databaseValue])
            try log("delete", scope: scope, table: table.name, id: id, in: db)
        }
        return now
    }

    /// Captures every row whose memberships are missing or out of date, without logging rows
    /// that are already right: run at start, so a data folder written under protocol 1 (or by
    /// an older emulator) is served under protocol 2 with nothing missing. Children after their
    /// parents, so a child finds its parent's scopes.
    func backfill(in db: Database) throws {
        for table in schema.snapshotOrder {
            let ids = try String.fetchAll(
                db,
                sql: "SELECT \(SQLIdentifier.quote(table.primaryKey)) FROM \(SQLIdentifier.quote(table.storageName))"
            )
            for id in ids {
                guard let row = try SyncRowStore.find(table, id: id, in: db) else { continue }
                let wanted = try scopes(of: row, in: table, db: db)
                let checksum = Int64(RowChecksum.of(Self.wireRow(row, table)))
                let stored = try Row.fetchAll(
                    db,
                    sql: "SELECT scope, checksum FROM _synchro2_memberships WHERE table_name = ? AND record_id = ? ORDER BY scope",
                    arguments: [table.name, id]
                )
                let upToDate = stored.map { $0["scope"] as String } == wanted && stored.allSatisfy { $0["checksum"] as Int64 == checksum }
                if !upToDate { try capture(table, id: id, in: db) }
            }
        }
    }

    private func log(_ operation: String, scope: String, table: String, id: String, in db: Database) throws {
        try db.cachedStatement(sql: "INSERT INTO _synchro2_log (scope, table_name, record_id, op) VALUES (?, ?, ?, ?)")
            .execute(binding: [scope.databaseValue, table.databaseValue, id.databaseValue, operation.databaseValue])
    }

    /// The row as protocol 2 serves it: every synced column (and no other), the registered
    /// timestamps in `YYYY-MM-DDTHH:MM:SS.sssZ` (what the stored text already is, or null).
    /// Members in the byte order of their names, the order its checksum needs (the real server
    /// does not keep the spec's order either: `jsonb` orders keys its own way).
    static func wireRow(_ row: StoredRow, _ table: SyncTable) -> JSONValue {
        var data = JSONObject()
        for column in table.wireColumns {
            data[column.name] = row.data[column.name] ?? .null
        }
        data[table.updatedAtColumn] = row.updatedAt?.json ?? .null
        data[table.deletedAtColumn] = row.deletedAt?.json ?? .null
        return .object(data)
    }

    /// `deleted_at`, else `updated_at`: a row's `server_version`.
    static func serverVersion(_ row: StoredRow) -> String? {
        (row.deletedAt ?? row.updatedAt)?.text
    }
}

import EmulatorSupport
import GRDB

/// The spec's `push: owner_only` on protocol 2: a user writes only rows they own.
///
/// The real Synchro 0.3.0 server has no ownership check of its own (contract §4.8): without
/// row-level security or a `synchro_write_protect` hook, any signed-in user may insert, update
/// or delete any row of a pushable table. The spec language promises `owner_only` for tables
/// whose rows have an owner (`owner:` or `parent:`), so the emulator keeps that promise as the
/// operator's hook and policies would (`Docs/SynchroServer.md` gives them, table by table), and
/// answers `rejected_terminal` / `policy_rejected` for:
/// - a write to a row that belongs to another user, or to nobody (an orphan), live or deleted:
///   update, delete, and an insert or upsert over its key;
/// - an insert whose owner column names another user (or no one), or a child whose parent row
///   belongs to another user or does not exist once the batch's earlier mutations are applied;
/// - an update that moves a row to another owner or under another user's parent.
///
/// A row's owner is its owner column's value, or its parent row's owner, to any depth; a
/// soft-deleted parent still owns its children, as on protocol 1. `push: enabled` on such a
/// table opts out and keeps the bare server's behaviour; a child of a `shared` or `sql` table
/// has no owner, and is not checked.
struct OwnerOnlyPolicy {
    let schema: SyncSchema

    /// Whether pushes to `table` are checked: an `owner_only` table whose rows have an owner,
    /// its own `owner:` column or, through `parent:`, an ancestor's. A child of a `shared` or
    /// `sql` table has no owner to check, and takes what its parent's policy allows.
    func applies(to table: SyncTable) -> Bool {
        guard table.pushPolicy == .ownerOnly else { return false }
        var current = table
        for _ in 0...schema.tables.count {
            switch current.scopeSource {
            case .owner: return true
            case .shared, .query: return false
            case .parent(let parent, _):
                guard let next = schema.table(parent) else { return false }
                current = next
            }
        }
        return false
    }

    /// The user a row of `table` belongs to, its columns read through `value` (a column's
    /// text, nil when null or absent); nil when it belongs to no one: no owner value, or a
    /// parent that does not exist.
    func owner(in table: SyncTable, value: (String) -> String?, in db: Database) throws -> String? {
        try owner(in: table, value: value, depth: 0, db: db)
    }

    /// The owner of a stored row, live or soft-deleted.
    func owner(of row: StoredRow, in table: SyncTable, db: Database) throws -> String? {
        try owner(in: table, value: { row.data[$0]?.stringValue }, depth: 0, db: db)
    }

    /// Walks up the parent chain; one longer than the number of tables is a cycle in the data,
    /// which owns nothing.
    private func owner(in table: SyncTable, value: (String) -> String?, depth: Int, db: Database) throws -> String? {
        switch table.scopeSource {
        case .owner(let column):
            return value(column).flatMap { $0.isEmpty ? nil : $0.lowercased() }
        case .parent(let parentName, let key):
            guard depth <= schema.tables.count, let parentTable = schema.table(parentName), let parentID = value(key), !parentID.isEmpty,
                let parent = try SyncRowStore.find(parentTable, id: parentID.lowercased(), in: db)
            else { return nil }
            return try owner(in: parentTable, value: { parent.data[$0]?.stringValue }, depth: depth + 1, db: db)
        case .shared, .query:
            return nil
        }
    }

    /// The refusal of a write to a row that is not the caller's.
    static func notYours(_ table: SyncTable) -> String {
        "table \"\(table.name)\" is owner_only: the row belongs to another user"
    }

    /// The refusal of a row the write would give to someone else (or no one).
    static func notForYou(_ table: SyncTable) -> String {
        switch table.scopeSource {
        case .parent(let parent, let key):
            "table \"\(table.name)\" is owner_only: \(key) must name a \(parent) row of the caller's"
        case .owner(let column):
            "table \"\(table.name)\" is owner_only: \(column) must be the caller's user id"
        case .shared, .query:
            "table \"\(table.name)\" is owner_only"
        }
    }

    /// The columns whose change may move a row to another owner.
    static func ownershipColumns(of table: SyncTable) -> [String] {
        switch table.scopeSource {
        case .owner(let column): [column]
        case .parent(_, let key): [key]
        case .shared, .query: []
        }
    }
}

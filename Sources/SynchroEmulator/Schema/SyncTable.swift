import EmulatorSupport
import SelfDBSpec

/// A synced table: its columns and how its rows are owned.
package struct SyncTable: Sendable {
    package let name: String
    let pushPolicy: SyncDeclaration.PushPolicy
    let primaryKey: String
    /// Which scopes a row is in (protocol 2).
    let scopeSource: SyncScopeSource
    /// The column forced to the caller's user id (root tables).
    let ownerColumn: String?
    /// The parent synced table and the column pointing at its key (child tables).
    let parentTable: String?
    let parentKeyColumn: String?
    let updatedAtColumn: String
    let deletedAtColumn: String
    /// Every column of the spec, in the spec's order: what the server stores.
    let columns: [SyncColumn]
    /// The columns that sync (all of them unless the spec says `exclude:` or `columns:`), in
    /// the spec's order: what protocol 2 serves, checksums and takes from a push.
    let syncedColumns: [SyncColumn]
    /// The text of the per-row statements (``SyncRowStore``).
    let rowSQL: SyncRowStore.SQL
    /// The columns a protocol-2 push never writes (the server sets them), built once: a set
    /// per pushed mutation showed in a profile.
    let pushProtectedColumns: Set<String>
    /// ``syncedColumns`` by name, for the per-mutation lookups of a push.
    private let syncedColumnsByName: [String: SyncColumn]
    /// ``syncedColumns`` in the byte order of their names: a served row lists its members so,
    /// which is already the order its checksum needs (``RowChecksum``), so no row is sorted.
    let wireColumns: [SyncColumn]

    init?(_ table: TableDeclaration) {
        guard let sync = table.sync, let primaryKey = table.primaryKey?.value, let scopeSource = SyncScopeSource(sync) else { return nil }
        name = table.tableName.value
        pushPolicy = sync.push
        self.primaryKey = primaryKey
        self.scopeSource = scopeSource
        ownerColumn = sync.owner?.value
        parentTable = sync.parent?.value
        parentKeyColumn = sync.parentKey?.value
        updatedAtColumn = sync.updatedAt.value
        deletedAtColumn = sync.deletedAt.value
        columns = table.columns.compactMap { column in
            // A column with an unknown type never gets past validation.
            column.type.map {
                SyncColumn(column, type: $0.value, isPrimaryKey: column.name.value == primaryKey, isUpdatedAt: column.name.value == sync.updatedAt.value)
            }
        }
        if let listed = sync.syncedColumns {
            let names = Set(listed.names.map(\.value))
            syncedColumns = columns.filter { names.contains($0.name) }
        } else {
            let excluded = Set(sync.excludedColumns?.names.map(\.value) ?? [])
            syncedColumns = columns.filter { !excluded.contains($0.name) }
        }
        rowSQL = SyncRowStore.SQL(storageName: Self.storageName(of: name), primaryKey: primaryKey, columns: columns)
        pushProtectedColumns = [primaryKey, updatedAtColumn, deletedAtColumn, "created_at"]
        syncedColumnsByName = Dictionary(syncedColumns.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
        wireColumns = syncedColumns.sorted { $0.name.utf8.lexicographicallyPrecedes($1.name.utf8) }
    }

    /// Whether protocol 1 can serve the table: it knows only rows owned through `owner` or
    /// `parent`, with every column synced.
    var servesProtocolOne: Bool {
        switch scopeSource {
        case .owner, .parent: syncedColumns.count == columns.count
        case .shared, .query: false
        }
    }

    /// The synced column `name`; nil for an unsynced or unknown one.
    func syncedColumn(_ name: String) -> SyncColumn? {
        syncedColumnsByName[name]
    }

    /// The shared scope of a table with `shared:`.
    var sharedScope: String? {
        if case .shared(let scope) = scopeSource { return scope }
        return nil
    }

    /// The scope query of a table with `sql:`.
    var scopeQuery: ScopeQuery? {
        if case .query(let query) = scopeSource { return query }
        return nil
    }

    /// The SQLite table holding the rows. The prefix keeps user names away from the
    /// server's own `_synchro_*` tables.
    var storageName: String { Self.storageName(of: name) }

    static func storageName(of name: String) -> String { "_synchro_row_" + name }

    var dependencies: [String] { parentTable.map { [$0] } ?? [] }

    /// Columns a client cannot change with an update.
    var protectedColumns: Set<String> {
        var names: Set<String> = [primaryKey, "created_at", updatedAtColumn, deletedAtColumn]
        if let ownerColumn { names.insert(ownerColumn) }
        if let parentKeyColumn { names.insert(parentKeyColumn) }
        return names
    }

    func column(_ name: String) -> SyncColumn? {
        columns.first { $0.name == name }
    }

    /// The table as `/sync/schema` lists it (and as the schema hash covers it).
    var schemaJSON: JSONValue {
        var object = metadata
        object["primary_key"] = [.string(primaryKey)]
        object["columns"] = .array(columns.map(\.json))
        return .object(object)
    }

    /// The table as `/sync/tables` lists it.
    var tablesJSON: JSONValue { .object(metadata) }

    private var metadata: JSONObject {
        var object = JSONObject()
        object["table_name"] = .string(name)
        object["push_policy"] = .string(pushPolicy.rawValue)
        object["parent_table"] = parentTable.map(JSONValue.string)
        object["parent_fk_col"] = parentKeyColumn.map(JSONValue.string)
        object["dependencies"] = .array(dependencies.map(JSONValue.string))
        object["updated_at_column"] = .string(updatedAtColumn)
        object["deleted_at_column"] = .string(deletedAtColumn)
        return object
    }
}

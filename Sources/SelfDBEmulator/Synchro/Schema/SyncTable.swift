import SelfDBSpec

/// A synced table: its columns and how its rows are owned.
struct SyncTable: Sendable {
    let name: String
    let pushPolicy: SyncDeclaration.PushPolicy
    let primaryKey: String
    /// The column forced to the caller's user id (root tables).
    let ownerColumn: String?
    /// The parent synced table and the column pointing at its key (child tables).
    let parentTable: String?
    let parentKeyColumn: String?
    let updatedAtColumn: String
    let deletedAtColumn: String
    /// In the spec's order.
    let columns: [SyncColumn]

    init?(_ table: TableDeclaration) {
        guard let sync = table.sync, let primaryKey = table.primaryKey?.value else { return nil }
        name = table.tableName.value
        pushPolicy = sync.push
        self.primaryKey = primaryKey
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
    }

    /// The SQLite table holding the rows. The prefix keeps user names away from the
    /// server's own `_synchro_*` tables.
    var storageName: String { "_synchro_row_" + name }

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

import EmulatorSupport

/// One row of a synced table as the server holds it.
package struct StoredRow: Sendable {
    /// The primary key, lower-cased.
    var id: String
    /// The user the row belongs to (directly or through its parent).
    var owner: String
    /// Every spec column, in spec order.
    var data: JSONObject
    var updatedAt: SyncTimestamp?
    var deletedAt: SyncTimestamp?

    var isDeleted: Bool { deletedAt != nil }

    /// The wire `Record`: `{id, table_name, data, updated_at, deleted_at?}`.
    func record(in table: SyncTable) -> JSONValue {
        var object = JSONObject()
        object["id"] = .string(id)
        object["table_name"] = .string(table.name)
        object["data"] = .object(data)
        // A row always has one once written by the server; the epoch stands in for rows a
        // spec change gave a new updatedAt column.
        object["updated_at"] = (updatedAt ?? SyncTimestamp(milliseconds: 0)).json
        object["deleted_at"] = deletedAt?.json
        return .object(object)
    }
}

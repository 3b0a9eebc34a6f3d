import EmulatorSupport
import Foundation
import GRDB

extension ProtocolTwoServer {
    /// A write that does not come through push (see `SelfDBEmulator.writeSyncedRow(table:values:)`):
    /// an upsert of the given columns, captured into the memberships and the change log like
    /// any write, as the real server's WAL worker captures an operator's write.
    package func operatorWrite(_ table: SyncTable, values: JSONObject) throws {
        guard let key = values[table.primaryKey]?.stringValue, !key.isEmpty else {
            throw OperatorWriteError.invalidRow("the row needs its primary key '\(table.primaryKey)' as a string")
        }
        var stored: [String: DatabaseValue] = [:]
        for (name, value) in values.members {
            guard let column = table.column(name) else {
                throw OperatorWriteError.invalidRow("'\(name)' is not a column of '\(table.name)'")
            }
            stored[name] = try Self.operatorValue(value, for: column)
        }
        let id = key.lowercased()
        stored[table.primaryKey] = id.databaseValue
        try pool.write { db in
            let existing = try SyncRowStore.find(table, id: id, in: db)
            if stored[table.updatedAtColumn] == nil {
                // Later than the row's last write, so last-write-wins sees it as newer.
                let floor = existing?.updatedAt?.adding(milliseconds: 1) ?? SyncTimestamp.now()
                stored[table.updatedAtColumn] = max(SyncTimestamp.now(), floor).text.databaseValue
            }
            if existing != nil {
                let changed = table.columns.compactMap { column in
                    column.name == table.primaryKey ? nil : stored[column.name].map { (column: column.name, value: $0) }
                }
                try SyncRowStore.update(table, id: id, values: changed, in: db)
            } else {
                var row: [(column: String, value: DatabaseValue)] = []
                for column in table.columns {
                    if let value = stored[column.name] {
                        row.append((column.name, value))
                    } else if let fallback = column.defaultValue, !fallback.isNull {
                        row.append((column.name, try Self.operatorValue(fallback, for: column)))
                    } else if column.nullable {
                        row.append((column.name, .null))
                    } else {
                        throw OperatorWriteError.invalidRow("'\(column.name)' of '\(table.name)' is not nullable and has no default")
                    }
                }
                let owner = table.ownerColumn.flatMap { stored[$0] }.flatMap(String.fromDatabaseValue)?.lowercased() ?? ""
                try SyncRowStore.insert(table, owner: owner, values: row, in: db)
            }
            try membership.capture(table, id: id, in: db)
        }
    }

    /// What to store for `value`: uuid columns keep the canonical lower-case form, as pushes do.
    private static func operatorValue(_ value: JSONValue, for column: SyncColumn) throws(OperatorWriteError) -> DatabaseValue {
        if column.databaseType == "uuid", case .string(let text) = value {
            guard UUIDText.isUUID(text) else { throw .invalidRow("'\(column.name)' is a uuid column; '\(text)' is not a UUID") }
            return text.lowercased().databaseValue
        }
        do {
            return try SyncValueCoding.storable(value, for: column)
        } catch {
            throw .invalidRow(error.message)
        }
    }
}

import Foundation
import SelfDBRuntime

/// The protocol-2 wire in the engine's own terms, so the local machinery (schema install,
/// record merge, push settlement) serves both protocols: a manifest table is a `SyncTable`, a
/// served row a `SyncRecord`, a push response a `PushResponse`.
enum ProtocolTwoConversions {
    /// A manifest table as protocol 1 described tables. Protocol 2 says nothing of parents or
    /// push policy: pushes go in the order they were written, and a read-only table answers
    /// `policy_rejected`.
    static func table(_ table: ManifestTable) -> SyncTable {
        let key = table.primaryKey?.first ?? "id"
        return SyncTable(
            tableName: table.name,
            pushPolicy: .ownerOnly,
            parentTable: nil,
            parentFkCol: nil,
            dependencies: [],
            updatedAtColumn: table.updatedAtColumn,
            deletedAtColumn: table.deletedAtColumn,
            primaryKey: [key],
            columns: (table.columns ?? []).map { column in
                SyncColumn(
                    name: column.name,
                    dbType: column.type.rawValue,
                    logicalType: LogicalType(rawValue: column.type.rawValue),
                    nullable: column.nullable,
                    isPrimaryKey: column.name == key
                )
            }
        )
    }

    /// A row as served (pull, rebuild, push `server_row`), keyed by `id` (the pk's text).
    static func record(table: String, id: String, row: [String: JSONValue], schema: LocalSchema) -> SyncRecord {
        let columns = schema.timestampColumns(of: table)
        let updatedAt = columns.flatMap { row[$0.updatedAt]?.stringValue } ?? "1970-01-01T00:00:00.000Z"
        let deletedAt = columns.flatMap { row[$0.deletedAt]?.stringValue }
        return SyncRecord(id: id, tableName: table, data: row, updatedAt: updatedAt, deletedAt: deletedAt)
    }

    /// The pending change as a mutation: create → insert, update → update, delete → delete.
    ///
    /// Protocol 2's manifest carries no defaults, so a local row holds NULL where the app set
    /// nothing: an insert leaves out the columns that are null locally (the server fills its own
    /// defaults for columns an insert does not name), and an update leaves out a NULL for a
    /// column the server declares NOT NULL (it would refuse the whole mutation). Other nulls of
    /// an update are sent: they clear a value.
    ///
    /// A push writes its batch's body straight from the changes (``MutationPushBody``): the
    /// bytes of these mutations, encoded.
    static func mutation(_ outgoing: OutgoingChange, id: String, schema: LocalSchema) -> Mutation {
        let change = outgoing.change
        let key = schema.table(change.tableName)?.primaryKey ?? "id"
        let op = operation(of: outgoing)
        return Mutation(
            mutationId: id,
            table: change.tableName,
            op: op,
            pk: [key: change.id],
            clientVersion: change.clientUpdatedAt,
            baseVersion: change.baseUpdatedAt,
            columns: op == .delete ? nil : change.data?.filter { name, value in keeps(value, nullable: nullable(name, in: change.tableName, schema: schema), in: op) }
        )
    }

    /// The mutation's operation for a pending change: create → insert, delete → delete,
    /// anything else → update.
    ///
    /// A create that went out before without an answer goes as an upsert. Its first send may
    /// have landed, and another device may have deleted the row since: an insert of a
    /// soft-deleted row brings it back on the server (a resurrection, judged by versions
    /// alone), where an upsert of it is refused as a conflict with the tombstone, which then
    /// reaches this device. Of a live row, an upsert is an update judged by versions; of no row,
    /// an insert.
    static func operation(of outgoing: OutgoingChange) -> MutationOperation {
        switch outgoing.change.operation {
        case .create: outgoing.pending.sentBefore ? .upsert : .insert
        case .delete: .delete
        default: .update
        }
    }

    /// Whether a mutation sends `value` of a column: a value always, a null only in an update
    /// of a column the server lets be null (an upsert is a create's: its nulls are unset).
    static func keeps(_ value: JSONValue, nullable: Bool, in operation: MutationOperation) -> Bool {
        !isNull(value) || (operation == .update && nullable)
    }

    /// The protocol-2 push answer as protocol 1's, matched to what was sent by mutation id.
    static func response(_ response: MutationPushResponse, sent: [(id: String, outgoing: OutgoingChange)], schema: LocalSchema) -> PushResponse {
        // The server answers in the order it was sent: an answer is matched at its own place,
        // and by mutation id (a table made once) only when it is not there.
        var byID: [String: PushChange]?
        func change(_ id: String, at position: Int?) -> PushChange? {
            if let position, position < sent.count, sent[position].id == id { return sent[position].outgoing.change }
            let table = byID ?? Dictionary(sent.map { ($0.id, $0.outgoing.change) }, uniquingKeysWith: { first, _ in first })
            byID = table
            return table[id]
        }
        var accepted: [PushResult] = []
        accepted.reserveCapacity(response.accepted.count)
        var rejected: [PushResult] = []
        for (position, entry) in response.accepted.enumerated() {
            guard let change = change(entry.mutationId, at: position) else { continue }
            let table = schema.table(change.tableName)
            var result = PushResult(id: change.id, tableName: change.tableName, operation: change.operation, status: .applied)
            result.serverUpdatedAt = table.flatMap { entry.serverRow?[$0.updatedAt]?.stringValue } ?? entry.serverVersion
            result.serverDeletedAt = table.flatMap { entry.serverRow?[$0.deletedAt]?.stringValue } ?? (change.operation == .delete ? entry.serverVersion : nil)
            // The row as the server holds it: settling writes it over the local row, so the
            // pull's echo of this change finds the row already equal.
            result.serverVersion = entry.serverRow.map { record(table: change.tableName, id: change.id.lowercased(), row: $0, schema: schema) }
            accepted.append(result)
        }
        for entry in response.rejected {
            guard let change = change(entry.mutationId, at: nil) else { continue }
            let status: PushStatus =
                switch entry.status {
                case .conflict: .conflict
                case .rejectedRetryable: .rejectedRetryable
                default: .rejectedTerminal
                }
            var result = PushResult(id: change.id, tableName: change.tableName, operation: change.operation, status: status)
            result.reasonCode = entry.code.rawValue
            result.message = entry.message
            result.serverVersion = entry.serverRow.map { record(table: change.tableName, id: change.id.lowercased(), row: $0, schema: schema) }
            result.serverUpdatedAt = entry.serverVersion
            rejected.append(result)
        }
        return PushResponse(accepted: accepted, rejected: rejected, checkpoint: 0, serverTime: response.serverTime, schemaVersion: schema.version, schemaHash: schema.hash)
    }

    private static func nullable(_ column: String, in table: String, schema: LocalSchema) -> Bool {
        schema.table(table)?.columns.first { $0.name == column }?.nullable ?? true
    }

    private static func isNull(_ value: JSONValue) -> Bool {
        if case .null = value { return true }
        return false
    }
}

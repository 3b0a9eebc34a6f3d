import EmulatorSupport
import GRDB
import Hummingbird

/// `POST /sync/snapshot`: every live row of the caller, table by table (parents first) in
/// key order, paged by a cursor `{checkpoint, table_idx, after_id}`.
enum SnapshotRoute {
    private struct Cursor {
        var checkpoint: Int64
        var tableIndex: Int
        var afterID: String
    }

    static func handle(_ body: SyncBody, _ context: SyncRequestContext) async throws -> Response {
        let clientID = try body.nonEmptyString("client_id")
        let cursor = try readCursor(body, tableCount: context.schema.snapshotOrder.count)
        let limit = try body.limit()
        try context.checkSchema(body)
        let user = context.user
        let tables = context.schema.snapshotOrder
        let page: Result<JSONObject, SyncError> = try await context.pool.write { db in
            guard try ClientRegistry.find(user: user, clientID: clientID, in: db) != nil else {
                return .failure(.clientNotRegistered)
            }
            // The first page fixes the checkpoint: changes after it reach the client by pull.
            var position = try cursor ?? Cursor(checkpoint: ChangeLog.maximumSequence(in: db), tableIndex: 0, afterID: "")
            var records: [JSONValue] = []
            while position.tableIndex < tables.count, records.count < limit {
                let table = tables[position.tableIndex]
                let remaining = limit - records.count
                let rows = try SyncRowStore.livePage(table, owner: user, after: position.afterID, limit: remaining, in: db)
                records += rows.map { $0.record(in: table) }
                if rows.count < remaining {
                    position.tableIndex += 1
                    position.afterID = ""
                } else if let last = rows.last {
                    position.afterID = last.id
                }
            }
            let hasMore = position.tableIndex < tables.count
            var object = JSONObject()
            object["records"] = .array(records)
            if hasMore {
                object["cursor"] = [
                    "checkpoint": .int(position.checkpoint), "table_idx": .int(Int64(position.tableIndex)),
                    "after_id": .string(position.afterID),
                ]
            } else {
                try ClientRegistry.recordSnapshot(user: user, clientID: clientID, checkpoint: position.checkpoint, in: db)
            }
            object["checkpoint"] = .int(position.checkpoint)
            object["has_more"] = .bool(hasMore)
            return .success(object)
        }
        var object = try page.get()
        context.stamp(&object)
        return .json(.object(object))
    }

    private static func readCursor(_ body: SyncBody, tableCount: Int) throws(SyncError) -> Cursor? {
        guard let value = body.value("cursor") else { return nil }
        guard let object = value.objectValue else { throw .badRequest("cursor must be an object") }
        let fields = SyncBody(object: object)
        let checkpoint: Int64
        let tableIndex: Int64
        let afterID: String
        do throws(SyncError) {
            checkpoint = try fields.int64("checkpoint")
            tableIndex = try fields.int64("table_idx")
            afterID = try fields.string("after_id")
        } catch {
            throw .badRequest("cursor.\(error.message)")
        }
        guard checkpoint >= 0 else { throw .badRequest("cursor.checkpoint must not be negative") }
        guard (0...Int64(tableCount)).contains(tableIndex) else { throw .badRequest("cursor.table_idx is out of range") }
        return Cursor(checkpoint: checkpoint, tableIndex: Int(tableIndex), afterID: afterID)
    }
}

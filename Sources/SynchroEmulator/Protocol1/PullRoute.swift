import EmulatorSupport
import GRDB
import Hummingbird

/// `POST /sync/pull`: the caller's changes after a checkpoint, one page at a time.
enum PullRoute {
    static func handle(_ body: SyncBody, _ context: SyncRequestContext) async throws -> Response {
        let clientID = try body.nonEmptyString("client_id")
        let checkpoint = try body.optionalInt64("checkpoint") ?? 0
        guard checkpoint >= 0 else { throw SyncError.badRequest("checkpoint must not be negative") }
        // An empty list means every table, as an absent one does.
        let tables = try body.optionalStrings("tables").flatMap { $0.isEmpty ? nil : $0 }
        let limit = try body.limit()
        _ = try body.optionalStrings("known_buckets")  // Checked for shape; the emulator has no buckets.
        try context.checkSchema(body)
        let user = context.user
        let schema = context.schema
        let page: Result<JSONObject, SyncError> = try await context.pool.write { db in
            guard let client = try ClientRegistry.find(user: user, clientID: clientID, in: db) else {
                return .failure(.clientNotRegistered)
            }
            if checkpoint == 0, client.lastPullAt == nil {
                return .success(snapshotRequired("initial_sync_required", checkpoint: checkpoint))
            }
            if checkpoint < (try ChangeLog.retentionFloor(in: db)) {
                return .success(snapshotRequired("checkpoint_before_retention", checkpoint: checkpoint))
            }
            let entries = try ChangeLog.entries(owner: user, after: checkpoint, tables: tables, limit: limit + 1, in: db)
            let hasMore = entries.count > limit
            let pageEntries = entries.prefix(limit)
            var changes: [JSONValue] = []
            var deletes: [JSONValue] = []
            for entry in latestPerRecord(pageEntries) {
                guard let table = schema.table(entry.table) else { continue }  // dropped from the spec since
                if entry.operation == .delete {
                    deletes.append(["id": .string(entry.recordID), "table_name": .string(entry.table)])
                } else if let row = try SyncRowStore.find(table, id: entry.recordID, in: db), row.owner == user {
                    changes.append(row.record(in: table))
                }
            }
            let newCheckpoint = pageEntries.last?.sequence ?? checkpoint
            try ClientRegistry.recordPull(user: user, clientID: clientID, checkpoint: newCheckpoint, in: db)
            var object = JSONObject()
            object["changes"] = .array(changes)
            object["deletes"] = .array(deletes)
            object["checkpoint"] = .int(newCheckpoint)
            object["has_more"] = .bool(hasMore)
            object["snapshot_required"] = false
            return .success(object)
        }
        var object = try page.get()
        context.stamp(&object)
        return .json(.object(object))
    }

    /// One entry per record, its latest in the page, in the order of those latest entries.
    private static func latestPerRecord(_ entries: ArraySlice<ChangeLog.Entry>) -> [ChangeLog.Entry] {
        var latest: [String: ChangeLog.Entry] = [:]
        for entry in entries {
            latest[entry.table + "\u{0}" + entry.recordID] = entry
        }
        return latest.values.sorted { $0.sequence < $1.sequence }
    }

    private static func snapshotRequired(_ reason: String, checkpoint: Int64) -> JSONObject {
        var object = JSONObject()
        object["changes"] = []
        object["deletes"] = []
        object["checkpoint"] = .int(checkpoint)
        object["has_more"] = false
        object["snapshot_required"] = true
        object["snapshot_reason"] = .string(reason)
        return object
    }
}

import EmulatorSupport
import GRDB
import Hummingbird

extension ProtocolTwoServer {
    /// One change-log entry read for a pull page.
    private struct LogEntry {
        var sequence: Int64
        var scope: String
        var table: String
        var recordID: String
        var operation: String
    }

    /// `POST /sync/pull` (§3.3): the changes of the client's scopes after their cursors, a page
    /// at a time; on the last page the checksum of every scope served.
    func pull(_ body: ProtocolTwoBody, user: String) async throws -> Response {
        let sentSchema = try body.schemaRef()
        _ = try body.int64("scope_set_version")
        let sent = try body.scopeCursors("scopes")
        let limit = try body.limit()
        try checkSchema(sentSchema)
        let tokens = self.tokens
        return try await pool.read { db in
            let client = try ProtocolTwoStore.activeClient(user: user, clientID: body.clientID, in: db)
            let sentByScope = Dictionary(sent.map { ($0.scope, $0.cursor) }, uniquingKeysWith: { first, _ in first })
            let active = client.scopes.filter { sentByScope.keys.contains($0) }
            let oldestEntry = try ProtocolTwoStore.minimumSequence(in: db)
            let logIsEmpty = oldestEntry == nil
            let oldest = oldestEntry ?? 0
            var rebuild: [String] = []
            var checkpoints: [String: Int64] = [:]
            for scope in active {
                guard let cursor = sentByScope[scope] ?? nil else {
                    if logIsEmpty { checkpoints[scope] = 0 } else { rebuild.append(scope) }
                    continue
                }
                switch tokens.verify(cursor, scope: scope) {
                case .stale:
                    rebuild.append(scope)
                case .invalid(let reason):
                    throw SyncError.invalidRequest("scope \(scope) cursor is invalid: \(reason)")
                case .valid(let checkpoint):
                    // Entries after it may have been compacted away: the real server's
                    // test, which also sends a cursor just below the oldest entry to rebuild.
                    if !logIsEmpty, checkpoint > 0, checkpoint < oldest {
                        rebuild.append(scope)
                    } else {
                        checkpoints[scope] = checkpoint
                    }
                }
            }
            let served = active.filter { checkpoints[$0] != nil }
            var entries = try Self.entries(after: checkpoints, limit: limit + 1, in: db)
            let hasMore = entries.count > limit
            if hasMore { entries.removeLast(entries.count - limit) }

            var cursors = JSONObject()
            // Each scope's cursor goes to its highest entry of the page: a record's latest entry
            // stands at its first entry's place, so the last one listed need not be the highest.
            var reached: [String: Int64] = [:]
            let page = Self.deduplicated(entries)
            let rows = try liveRows(of: page.map { ($0.table, $0.recordID) }, in: db)
            var writer = PageWriter(capacity: 256 * page.count + 512)
            writer.openObject()
            writer.openArray("changes")
            for entry in page {
                reached[entry.scope] = max(reached[entry.scope] ?? 0, entry.sequence)
                if let table = schema.table(entry.table) {
                    Self.write(entry, table: table, row: rows[entry.table]?[entry.recordID], into: &writer)
                }
            }
            writer.closeArray()
            for (scope, sequence) in reached.sorted(by: { $0.key < $1.key }) {
                cursors[scope] = .string(tokens.issue(scope: scope, checkpoint: sequence))
            }
            writer.member("scope_set_version", .int(client.scopeSetVersion))
            writer.member("scope_cursors", .object(cursors))
            let sentIDs = Set(sentByScope.keys)
            writer.member("scope_updates", Self.delta(add: client.scopes.filter { !sentIDs.contains($0) }, remove: sentIDs.subtracting(client.scopes).sorted()))
            writer.member("rebuild", .array(rebuild.map(JSONValue.string)))
            writer.member("has_more", .bool(hasMore))
            if !hasMore {
                var checksums = JSONObject()
                for scope in served {
                    checksums[scope] = .string(String(try Self.scopeChecksum(scope, in: db)))
                }
                writer.member("checksums", .object(checksums))
            }
            writer.closeObject()
            return .json(bytes: writer.bytes)
        }
    }

    /// The XOR of the checksums of the scope's live memberships.
    static func scopeChecksum(_ scope: String, in db: Database) throws -> Int32 {
        let values = try Int64.fetchAll(db, sql: "SELECT checksum FROM _synchro2_memberships WHERE scope = ?", arguments: [scope])
        return RowChecksum.combine(values.map { Int32(truncatingIfNeeded: $0) })
    }

    /// Every scope's entries after its own checkpoint, in sequence order, at most `limit`.
    private static func entries(after checkpoints: [String: Int64], limit: Int, in db: Database) throws -> [LogEntry] {
        guard !checkpoints.isEmpty else { return [] }
        let scopes = checkpoints.keys.sorted()
        let condition = Array(repeating: "(scope = ? AND seq > ?)", count: scopes.count).joined(separator: " OR ")
        var arguments = StatementArguments()
        for scope in scopes {
            arguments += [scope, checkpoints[scope] ?? 0]
        }
        arguments += [limit]
        let select = try db.cachedStatement(sql: "SELECT seq, scope, table_name, record_id, op FROM _synchro2_log WHERE \(condition) ORDER BY seq LIMIT ?")
        try select.setArguments(arguments)
        // Read by position from a cursor: a page reads a thousand entries, and looking each
        // column up by name, in rows copied out of the statement, showed in profiles.
        var entries: [LogEntry] = []
        entries.reserveCapacity(limit)
        let rows = try Row.fetchCursor(select)
        while let row = try rows.next() {
            entries.append(LogEntry(sequence: row[0], scope: row[1], table: row[2], recordID: row[3], operation: row[4]))
        }
        return entries
    }

    /// One entry per record and scope: the latest, at the place of its first appearance. The
    /// real server's dedup ignores the scope, so a record in two of the client's scopes reaches
    /// only one of them in that page and the other's checksum repairs it later (§9.11); here
    /// each scope gets its own entry.
    private static func deduplicated(_ entries: [LogEntry]) -> [LogEntry] {
        struct Key: Hashable {
            var scope: String
            var table: String
            var recordID: String
        }
        var position: [Key: Int] = [:]
        position.reserveCapacity(entries.count)
        var result: [LogEntry] = []
        result.reserveCapacity(entries.count)
        for entry in entries {
            let key = Key(scope: entry.scope, table: entry.table, recordID: entry.recordID)
            if let index = position[key] {
                result[index] = entry
            } else {
                position[key] = result.count
                result.append(entry)
            }
        }
        return result
    }

    /// The rows of `records` that exist, read live and serialised as served, by table and id:
    /// a page's rows a few hundred per statement (``SyncRowStore/forEachRow(_:ids:in:_:)``).
    func liveRows(of records: [(table: String, id: String)], in db: Database) throws -> [String: [String: ServedRow]] {
        var rows: [String: [String: ServedRow]] = [:]
        for (name, named) in Dictionary(grouping: records, by: \.table) {
            guard let table = schema.table(name) else { continue }
            let ids = Set(named.map(\.id))
            let reader = ServedRowReader(table)
            var found: [String: ServedRow] = [:]
            found.reserveCapacity(ids.count)
            try SyncRowStore.forEachRow(table, ids: Array(ids), in: db) { key, row in found[key] = reader.read(row) }
            // A key SQLite matched only by converting it (an integer key written `05`) is read
            // alone, so the page is what reading each row would give.
            for id in ids where found[id] == nil {
                found[id] = try SyncRowStore.find(table, id: id, in: db).map { ServedRow($0, table: table) }
            }
            rows[name] = found
        }
        return rows
    }

    /// Writes the ChangeRecord for `entry`, whose row is `row` now (nil: gone); nothing for an
    /// insert or update whose row is gone.
    ///
    /// A delete carries the row only when it is a tombstone (soft-deleted): a row that left
    /// the scope but lives on is sent without it, as the protocol's spec says (the 0.3.0 server
    /// sends it live, which its own Swift client cannot read).
    private static func write(_ entry: LogEntry, table: SyncTable, row: ServedRow?, into writer: inout PageWriter) {
        let isDelete = entry.operation == "delete"
        // A row soft-deleted since is still sent as an upsert, as the real server does (its
        // delete entry follows).
        guard isDelete || row != nil else { return }
        writer.openObject()
        writer.member("scope", .string(entry.scope))
        writer.member("table", .string(entry.table))
        writer.member("pk", [table.primaryKey: .string(entry.recordID)])
        writer.member("op", isDelete ? "delete" : "upsert")
        if let row, !isDelete || row.isDeleted {
            writer.servedRow(row)
        }
        writer.member("server_version", .string(row?.serverVersion ?? String(entry.sequence)))
        writer.closeObject()
    }
}

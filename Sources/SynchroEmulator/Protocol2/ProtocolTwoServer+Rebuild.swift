import EmulatorSupport
import GRDB
import Hummingbird

extension ProtocolTwoServer {
    /// `POST /sync/rebuild` (§3.4): one scope's live rows a page at a time, walking its
    /// memberships in (table, record) order; the last page brings the scope's new cursor, at the
    /// change log's current maximum, and its checksum. Not schema-checked.
    func rebuild(_ body: ProtocolTwoBody, user: String) async throws -> Response {
        guard let scope = body.object["scope"]?.stringValue, !scope.isEmpty else { throw SyncError.badRequest("scope is required") }
        let after = try body.optionalString("cursor")
        let limit = try body.limit()
        let tokens = self.tokens
        return try await pool.write { db in
            let client = try ProtocolTwoStore.activeClient(user: user, clientID: body.clientID, in: db)
            guard client.scopes.contains(scope) else { throw SyncError.invalidRequest("client is not subscribed to scope \(scope)") }
            var condition = "scope = ?"
            var arguments: StatementArguments = [scope]
            // "<table>|<record_id>" of the last membership examined; without a "|" the walk
            // starts again from the beginning, as the real server's does.
            if let after, let bar = after.firstIndex(of: "|") {
                condition += " AND (table_name > ? OR (table_name = ? AND record_id > ?))"
                let table = String(after[..<bar])
                arguments += [table, table, String(after[after.index(after: bar)...])]
            }
            arguments += [limit + 1]
            var examined = try Row.fetchAll(
                db,
                sql: "SELECT table_name, record_id FROM _synchro2_memberships WHERE \(condition) ORDER BY table_name, record_id LIMIT ?",
                arguments: arguments
            ).map { (table: $0["table_name"] as String, id: $0["record_id"] as String) }
            let hasMore = examined.count > limit
            if hasMore { examined.removeLast() }
            let rows = try liveRows(of: examined, in: db)
            var writer = PageWriter(capacity: 256 * examined.count + 512)
            writer.openObject()
            writer.member("scope", .string(scope))
            writer.openArray("records")
            for membership in examined {
                guard let table = schema.table(membership.table), let row = rows[membership.table]?[membership.id], !row.isDeleted else { continue }
                writer.openObject()
                writer.member("table", .string(table.name))
                writer.member("pk", [table.primaryKey: .string(row.id)])
                writer.servedRow(row)
                writer.member("server_version", .string(row.serverVersion ?? "0"))
                writer.closeObject()
            }
            writer.closeArray()
            if hasMore, let last = examined.last {
                writer.member("cursor", .string("\(last.table)|\(last.id)"))
                writer.member("has_more", true)
            } else {
                writer.member("cursor", .null)
                writer.member("has_more", false)
                writer.member("final_scope_cursor", .string(tokens.issue(scope: scope, checkpoint: try ProtocolTwoStore.maximumSequence(in: db))))
                writer.member("checksum", .string(String(try Self.scopeChecksum(scope, in: db))))
                try ProtocolTwoStore.recordSync(user: user, clientID: body.clientID, in: db)
            }
            writer.closeObject()
            return .json(bytes: writer.bytes)
        }
    }
}

import EmulatorSupport
import Foundation
import GRDB
import Hummingbird

/// Synchro protocol 2 (Synchro 0.3.0, `shared/contracts/synchro-v2.md`) over the sync server's
/// store: connect, pull, push and rebuild for authenticated clients; schema and tables for
/// anyone. The emulator's ``SynchroServer`` mounts it when configured for protocol 2 and does the
/// HTTP plumbing (version gate, routing, auth, body limit) in the real adapter's order.
package struct ProtocolTwoServer: Sendable {
    let schema: SyncSchema
    let manifest: SchemaManifest
    let schemaVersion: Int64
    let tokens: ScopeCursorToken
    let pool: DatabasePool
    let toleranceMilliseconds: Int64
    let writeErrors: SyncPushWriteErrors
    /// The tables whose stored key is unique, as the spec's is: a push writes their new records
    /// with `ON CONFLICT (key) DO NOTHING`. A store kept from a spec with another key has no
    /// unique constraint on the new one (SQLite cannot add it to a table), and takes the
    /// lookup first.
    let uniquelyKeyedTables: Set<String>

    init(schema: SyncSchema, pool: DatabasePool, toleranceMilliseconds: Int64, writeErrors: SyncPushWriteErrors = .rollBackBatch) throws {
        self.schema = schema
        self.writeErrors = writeErrors
        manifest = SchemaManifest(schema)
        self.pool = pool
        self.toleranceMilliseconds = toleranceMilliseconds
        try ProtocolTwoStore.migrate(pool)
        let manifest = self.manifest
        let membership = ScopeMembership(schema: schema)
        let sharedScopes = schema.sharedScopes
        (schemaVersion, tokens, uniquelyKeyedTables) = try pool.write { db in
            // Before the backfill, which runs the scope queries.
            try ScopeQueryTables.installViews(schema.tables, in: db)
            try ProtocolTwoStore.registerSharedScopes(sharedScopes, in: db)
            try membership.backfill(in: db)
            let keyed = try schema.tables.filter { try db.table($0.storageName, hasUniqueKey: [$0.primaryKey]) }.map(\.name)
            return (try ProtocolTwoStore.schemaVersion(for: manifest.hash, in: db), try ProtocolTwoStore.cursorTokens(in: db), Set(keyed))
        }
    }

    /// The paths protocol 2 answers, each with its method.
    enum Endpoint: String, Sendable {
        case connect = "/sync/connect"
        case push = "/sync/push"
        case pull = "/sync/pull"
        case rebuild = "/sync/rebuild"
        case schema = "/sync/schema"
        case tables = "/sync/tables"

        var method: HTTPRequest.Method { self == .schema || self == .tables ? .get : .post }
        var needsAuthentication: Bool { method == .post }
    }

    var membership: ScopeMembership { ScopeMembership(schema: schema) }

    var ownerOnly: OwnerOnlyPolicy { OwnerOnlyPolicy(schema: schema) }

    /// Every client's scope assignment: its user scope, then every shared scope sorted by id
    /// (§3.1, §4.2: every client gets every shared scope).
    func assignment(for user: String) -> [String] {
        ["user:" + user] + schema.sharedScopes
    }

    /// The server's (version, hash); a request carrying exactly (0, "") skips the check, as does
    /// a server with no synced tables.
    func checkSchema(_ sent: (version: Int64, hash: String)) throws(SyncError) {
        if sent.version == 0, sent.hash.isEmpty { return }
        if manifest.hash.isEmpty { return }
        guard sent.version == schemaVersion, sent.hash == manifest.hash else {
            throw .schemaMismatch(client: sent, server: (schemaVersion, manifest.hash))
        }
    }

    /// RFC 3339 UTC with nanoseconds, as chrono writes `server_time` on connect and push.
    static func serverTime() -> String {
        let now = Date().timeIntervalSince1970
        let milliseconds = Int64((now * 1000).rounded(.down))
        let text = SyncTimestamp(milliseconds: milliseconds).text
        let nanos = Int64(((now - Double(milliseconds) / 1000) * 1_000_000_000).rounded(.down))
        let subMillisecond = max(0, min(999_999, nanos))
        return String(text.dropLast()) + String(format: "%06lld", subMillisecond) + "Z"
    }

    // MARK: - Connect (§3.1)

    func connect(_ body: ProtocolTwoBody, user: String) async throws -> Response {
        let platform = try body.string("platform")
        let appVersion = try body.string("app_version")
        let protocolVersion = try body.int64("protocol_version")
        let sentSchema = try body.schemaRef()
        _ = try body.int64("scope_set_version")
        let known = try body.scopeCursors("known_scopes")
        guard protocolVersion == 2 else { throw SyncError.envelope(.upgradeRequired, "unsupported protocol version") }
        let assigned = assignment(for: user)
        let client = try await pool.write { db in
            try ProtocolTwoStore.register(user: user, clientID: body.clientID, platform: platform, appVersion: appVersion, scopes: assigned, in: db)
        }
        let knownIDs = Set(known.map(\.scope))
        let matches = sentSchema.version == schemaVersion && sentSchema.hash == manifest.hash
        var schemaObject = JSONObject()
        schemaObject["version"] = .int(schemaVersion)
        schemaObject["hash"] = .string(manifest.hash)
        schemaObject["action"] = .string(matches ? "none" : "replace")
        var object = JSONObject()
        object["server_time"] = .string(Self.serverTime())
        object["protocol_version"] = .int(2)
        object["scope_set_version"] = .int(client.scopeSetVersion)
        object["schema"] = .object(schemaObject)
        object["scopes"] = Self.delta(add: assigned.filter { !knownIDs.contains($0) }, remove: knownIDs.subtracting(assigned).sorted())
        if !matches { object["schema_definition"] = manifest.json }
        return .json(.object(object))
    }

    /// `{"add":[{"id":…,"cursor":null}],"remove":[…]}`.
    static func delta(add: [String], remove: [String]) -> JSONValue {
        [
            "add": .array(add.map { ["id": .string($0), "cursor": .null] }),
            "remove": .array(remove.map(JSONValue.string)),
        ]
    }

    // MARK: - Schema and tables (§3.5, §3.6)

    func schemaResponse() -> Response {
        var object = JSONObject()
        object["schema_version"] = .int(schemaVersion)
        object["schema_hash"] = .string(manifest.hash)
        object["server_time"] = .string(SyncTimestamp.now().text)
        object["manifest"] = manifest.json
        return .json(.object(object))
    }

    func tablesResponse() -> Response {
        let tables: [JSONValue] = schema.tables.map { table in
            var entry = JSONObject()
            entry["table_name"] = .string(table.name)
            entry["push_policy"] = .string(table.pushPolicy == .disabled ? "read_only" : "enabled")
            entry["dependencies"] = .array([])
            entry["pk_column"] = .string(table.primaryKey)
            entry["updated_at_column"] = .string(table.updatedAtColumn)
            entry["deleted_at_column"] = .string(table.deletedAtColumn)
            // As the real server stores them: the synced set, and every other column.
            let synced = Set(table.syncedColumns.map(\.name))
            entry["sync_columns"] = .array(table.syncedColumns.map { .string($0.name) })
            entry["exclude_columns"] = .array(table.columns.filter { !synced.contains($0.name) }.map { .string($0.name) })
            return .object(entry)
        }
        var object = JSONObject()
        object["tables"] = .array(tables)
        object["server_time"] = .string(SyncTimestamp.now().text)
        object["schema_version"] = .int(schemaVersion)
        object["schema_hash"] = .string(manifest.hash)
        return .json(.object(object))
    }
}

import EmulatorSupport
import GRDB

/// What every endpoint handler gets: the server and the authenticated caller.
struct SyncRequestContext: Sendable {
    let server: SynchroServer
    /// The caller's user id (the token's `sub`, lower-cased).
    let user: String

    var schema: SyncSchema { server.schema }
    var pool: DatabasePool { server.store.pool }

    /// `schema_version` and `schema_hash`, which every answer carries.
    func stamp(_ object: inout JSONObject) {
        object["schema_version"] = .int(server.schemaVersion)
        object["schema_hash"] = .string(schema.hash)
    }

    func checkSchema(_ body: SyncBody, allowUnset: Bool = false) throws(SyncError) {
        try body.checkSchema(version: server.schemaVersion, hash: schema.hash, allowUnset: allowUnset)
    }
}

import EmulatorSupport
import Hummingbird

/// `POST /sync/register`: creates or updates the client of (caller, `client_id`).
enum RegisterRoute {
    static func handle(_ body: SyncBody, _ context: SyncRequestContext) async throws -> Response {
        let registration = ClientRegistry.Registration(
            clientID: try body.nonEmptyString("client_id"),
            clientName: try body.optionalString("client_name"),
            platform: try body.string("platform"),
            appVersion: try body.string("app_version")
        )
        try context.checkSchema(body, allowUnset: true)
        try context.server.checkAppVersion(registration.appVersion, missingIsAllowed: false)
        let user = context.user
        let client = try await context.pool.write { db in
            try ClientRegistry.register(registration, user: user, in: db)
        }
        var object = JSONObject()
        object["id"] = .string(client.id)
        object["server_time"] = SyncTimestamp.now().json
        object["last_sync_at"] = client.lastSyncAt.map(JSONValue.string)
        object["checkpoint"] = .int(client.lastPullSequence ?? 0)
        context.stamp(&object)
        return .json(.object(object))
    }
}

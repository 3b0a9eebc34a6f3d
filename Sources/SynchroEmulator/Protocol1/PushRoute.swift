import EmulatorSupport
import Hummingbird

/// `POST /sync/push`: applies the caller's changes in order and reports each outcome.
enum PushRoute {
    static func handle(_ body: SyncBody, _ context: SyncRequestContext) async throws -> Response {
        let clientID = try body.nonEmptyString("client_id")
        guard let sent = body.value("changes") else { throw SyncError.badRequest("changes is required") }
        guard let elements = sent.arrayValue else { throw SyncError.badRequest("changes must be an array") }
        let changes = try elements.enumerated().map { index, element throws(SyncError) in try PushChange(element, index: index) }
        try context.checkSchema(body)
        let user = context.user
        let server = context.server
        let processor = PushProcessor(
            schema: context.schema,
            user: user,
            toleranceMilliseconds: server.toleranceMilliseconds,
            takeFailure: server.takePushFailure
        )
        let outcome: Result<[PushResult], SyncError> = try await context.pool.write { db in
            guard try ClientRegistry.find(user: user, clientID: clientID, in: db) != nil else {
                return .failure(.clientNotRegistered)
            }
            let results = changes.map { processor.process($0, in: db) }
            try ClientRegistry.recordPush(user: user, clientID: clientID, in: db)
            return .success(results)
        }
        let results = try outcome.get()
        var object = JSONObject()
        object["accepted"] = .array(results.filter { $0.status == .applied }.map(\.json))
        object["rejected"] = .array(results.filter { $0.status != .applied }.map(\.json))
        object["checkpoint"] = 0
        object["server_time"] = SyncTimestamp.now().json
        context.stamp(&object)
        return .json(.object(object))
    }
}

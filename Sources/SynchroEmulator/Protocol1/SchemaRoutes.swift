import EmulatorSupport
import Hummingbird

/// `GET /sync/schema` and `GET /sync/tables`.
enum SchemaRoutes {
    static func schema(_ context: SyncRequestContext) -> Response {
        var object = JSONObject()
        context.stamp(&object)
        object["server_time"] = SyncTimestamp.now().json
        object["tables"] = .array(context.schema.tables.map(\.schemaJSON))
        return .json(.object(object))
    }

    static func tables(_ context: SyncRequestContext) -> Response {
        var object = JSONObject()
        object["tables"] = .array(context.schema.tables.map(\.tablesJSON))
        object["server_time"] = SyncTimestamp.now().json
        context.stamp(&object)
        return .json(.object(object))
    }
}

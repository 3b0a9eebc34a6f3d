import EmulatorSupport

/// The outcome of one pushed change (`PushResult` on the wire).
struct PushResult: Sendable {
    enum Status: String, Sendable {
        case applied, conflict
        case rejectedTerminal = "rejected_terminal"
        case rejectedRetryable = "rejected_retryable"
    }

    var id: String
    var table: String
    var operation: String
    var status: Status
    var reasonCode: String?
    var message: String?
    var serverVersion: JSONValue?
    var serverUpdatedAt: SyncTimestamp?
    var serverDeletedAt: SyncTimestamp?

    init(_ change: PushChange, _ status: Status, reason: String? = nil, message: String? = nil) {
        id = change.id
        table = change.table
        operation = change.operation
        self.status = status
        reasonCode = reason
        self.message = message
    }

    var json: JSONValue {
        var object = JSONObject()
        object["id"] = .string(id)
        object["table_name"] = .string(table)
        object["operation"] = .string(operation)
        object["status"] = .string(status.rawValue)
        object["reason_code"] = reasonCode.map(JSONValue.string)
        object["message"] = message.map(JSONValue.string)
        object["server_version"] = serverVersion
        object["server_updated_at"] = serverUpdatedAt?.json
        object["server_deleted_at"] = serverDeletedAt?.json
        return .object(object)
    }
}

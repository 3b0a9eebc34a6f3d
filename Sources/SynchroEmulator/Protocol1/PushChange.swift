import EmulatorSupport

/// One element of a push's `changes`, read strictly: a change that cannot even be
/// attributed (no id, table or operation text, no valid `client_updated_at`) fails the
/// whole request with 400, while everything else is judged per change.
struct PushChange: Sendable {
    /// The id as sent; the server stores and serves it lower-cased.
    var id: String
    var table: String
    /// Raw, so that an unknown operation is answered per change (`invalid_operation`).
    var operation: String
    var data: JSONValue?
    var clientUpdatedAt: SyncTimestamp
    var baseUpdatedAt: SyncTimestamp?

    init(_ value: JSONValue, index: Int) throws(SyncError) {
        let path = "changes[\(index)]"
        guard let object = value.objectValue else { throw .badRequest("\(path) must be an object") }
        let body = SyncBody(object: object)
        do throws(SyncError) {
            id = try body.string("id")
            table = try body.string("table_name")
            operation = try body.string("operation")
        } catch {
            throw .badRequest("\(path).\(error.message)")
        }
        data = body.value("data")
        guard let sent = body.value("client_updated_at") else { throw .badRequest("\(path).client_updated_at is required") }
        guard let text = sent.stringValue, let instant = SyncTimestamp(parsing: text) else {
            throw .badRequest("\(path).client_updated_at must be an RFC 3339 timestamp")
        }
        clientUpdatedAt = instant
        if let base = body.value("base_updated_at") {
            guard let text = base.stringValue, let instant = SyncTimestamp(parsing: text) else {
                throw .badRequest("\(path).base_updated_at must be an RFC 3339 timestamp")
            }
            baseUpdatedAt = instant
        }
    }
}

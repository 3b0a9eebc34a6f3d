import EmulatorSupport
import Hummingbird

/// An error answer in Synchro's shapes: `{"error": "..."}`, or the 409 schema-mismatch body.
struct SyncError: Error, Sendable {
    var status: HTTPResponse.Status
    var body: JSONValue
    var headers: HTTPFields = [:]

    init(status: HTTPResponse.Status, message: String, headers: HTTPFields = [:]) {
        self.status = status
        self.body = ["error": .string(message)]
        self.headers = headers
    }

    init(status: HTTPResponse.Status, body: JSONValue, headers: HTTPFields = [:]) {
        self.status = status
        self.body = body
        self.headers = headers
    }

    /// The text of an `{"error": ...}` body.
    var message: String { body["error"]?.stringValue ?? "" }

    static func badRequest(_ message: String) -> SyncError { SyncError(status: .badRequest, message: message) }
    static func notFound(_ message: String) -> SyncError { SyncError(status: .notFound, message: message) }

    static let unauthorized = SyncError(status: .unauthorized, message: "missing or invalid token", headers: [.wwwAuthenticate: "Bearer"])
    static let upgradeRequired = SyncError(status: .upgradeRequired, message: "client upgrade required")
    static let methodNotAllowed = SyncError(status: .methodNotAllowed, message: "method not allowed")
    static let clientNotRegistered = SyncError.notFound("client not registered")
    static let internalError = SyncError(status: .internalServerError, message: "internal server error")

    static func tooLarge(limit: Int) -> SyncError {
        SyncError(status: .contentTooLarge, message: "request body too large (limit \(limit) bytes)")
    }

    static func schemaMismatch(version: Int64, hash: String) -> SyncError {
        SyncError(
            status: .conflict,
            body: [
                "code": "schema_mismatch",
                "message": "client schema does not match server schema",
                "server_schema_version": .int(version),
                "server_schema_hash": .string(hash),
            ]
        )
    }

    var response: Response {
        var response = Response.json(body, status: status)
        for field in headers {
            response.headers[field.name] = field.value
        }
        return response
    }
}

import EmulatorSupport
import Hummingbird

/// Protocol 2's second error shape, the extension's envelope
/// `{"error":{"code":…,"message":…,"retryable":…}}`, with the status the real adapter picks from
/// its code (`api/go/errors.go`). The adapter's own errors keep shape A, `{"error":"…"}`.
extension SyncError {
    /// The envelope's codes (0.3.0 emits the first three, always not retryable).
    enum EnvelopeCode: String, Sendable, CaseIterable {
        case invalidRequest = "invalid_request"
        case schemaMismatch = "schema_mismatch"
        case upgradeRequired = "upgrade_required"
        case authRequired = "auth_required"
        case retryLater = "retry_later"
        case temporaryUnavailable = "temporary_unavailable"

        /// The HTTP status the adapter answers the code with.
        var status: HTTPResponse.Status {
            switch self {
            case .invalidRequest: .badRequest
            case .authRequired: .unauthorized
            case .schemaMismatch: .unprocessableContent
            case .upgradeRequired: .upgradeRequired
            case .retryLater: .tooManyRequests
            case .temporaryUnavailable: .serviceUnavailable
            }
        }

        var retryable: Bool { self == .retryLater || self == .temporaryUnavailable }
    }

    /// An envelope error; 429 and 503 carry the adapter's `Retry-After: 5`.
    static func envelope(_ code: EnvelopeCode, _ message: String) -> SyncError {
        let error: JSONValue = ["code": .string(code.rawValue), "message": .string(message), "retryable": .bool(code.retryable)]
        let headers: HTTPFields = code.retryable ? [.retryAfter: "5"] : [:]
        return SyncError(status: code.status, body: ["error": error], headers: headers)
    }

    /// `invalid_request`, for what the extension rejects: bad fields, an unregistered client,
    /// a corrupt cursor, a scope not assigned.
    static func invalidRequest(_ message: String) -> SyncError { envelope(.invalidRequest, message) }

    /// 422: the request's schema is not the server's (the client must connect again to learn it).
    static func schemaMismatch(client: (version: Int64, hash: String), server: (version: Int64, hash: String)) -> SyncError {
        envelope(.schemaMismatch, "client schema \(client.version):\(client.hash) does not match server schema \(server.version):\(server.hash)")
    }
}

import Foundation

/// Everything a SelfDB call can fail with. Cases carry the server's `detail` text.
///
/// The cases of the SDK design note come first; match them without their payload
/// (`catch SelfDBError.notFound`) where the text does not matter.
public enum SelfDBError: Error, Sendable, CustomStringConvertible {
    /// No answer came: the server could not be reached (DNS, refused, TLS...), or the
    /// connection failed after the request was sent (lost, reset, timed out, a cut answer).
    /// ``delivery`` tells which: whether the server may have applied the request.
    case connectionError(any Error)
    /// The server answered 400: a malformed request.
    case badRequest(String)
    /// The server answered 401, or a call that needs a signed-in user made without one, or a refresh that failed.
    case authenticationError(String)
    /// The server answered 403: the credentials do not allow the call.
    case permissionDenied(String)
    /// The server answered 404: what the call names does not exist.
    case notFound(String)
    /// The server answered 409: a conflict, such as a name already taken.
    case conflict(String)
    /// The server answered 500 or another unmapped 5xx.
    case internalServerError(String)
    /// The server answered 406: SelfDB's answer to a request without an API key.
    case notAcceptable(String)
    /// The server answered 413: the body is too large.
    case payloadTooLarge(String)
    /// The server answered 422, with the server's list of field problems.
    case validationFailed([ValidationIssue])
    /// The server answered 426: the app is too old for the server.
    case upgradeRequired(String)
    /// The server answered 429, with the delay the server asked for.
    case rateLimited(retryAfter: TimeInterval?, String)
    /// The server answered 503, with the delay the server asked for.
    case serviceUnavailable(retryAfter: TimeInterval?, String)
    /// A status the spec does not map.
    case unexpectedStatus(Int, String)
    /// A 2xx response whose body is not what the spec says.
    case invalidResponse(String)
    /// An argument rejected before anything was sent.
    case invalidArgument(String)
    /// A local file could not be used: the file to upload does not exist or cannot be read,
    /// the download's destination cannot be written, the disk filled up.
    case fileError(String)

    /// The server's text, or a description of the local failure.
    public var detail: String {
        switch self {
        case .connectionError(let error): "\(error)"
        case .badRequest(let text), .authenticationError(let text), .permissionDenied(let text), .notFound(let text),
            .conflict(let text), .internalServerError(let text), .notAcceptable(let text), .payloadTooLarge(let text),
            .upgradeRequired(let text), .rateLimited(_, let text), .serviceUnavailable(_, let text),
            .unexpectedStatus(_, let text), .invalidResponse(let text), .invalidArgument(let text), .fileError(let text):
            text
        case .validationFailed(let issues):
            issues.map(\.description).joined(separator: "; ")
        }
    }

    /// The HTTP status behind the error, when there was a response.
    public var status: Int? {
        switch self {
        case .badRequest: 400
        case .authenticationError: 401
        case .permissionDenied: 403
        case .notFound: 404
        case .notAcceptable: 406
        case .conflict: 409
        case .payloadTooLarge: 413
        case .validationFailed: 422
        case .upgradeRequired: 426
        case .rateLimited: 429
        case .internalServerError: 500
        case .serviceUnavailable: 503
        case .unexpectedStatus(let status, _): status
        case .connectionError, .invalidResponse, .invalidArgument, .fileError: nil
        }
    }

    /// For a ``connectionError(_:)``, whether the request may have reached the server
    /// (``RequestDelivery/unknown``) or certainly did not (``RequestDelivery/notSent``); nil
    /// for every other case, where the server answered or nothing was sent.
    public var delivery: RequestDelivery? {
        guard case .connectionError(let error) = self else { return nil }
        return RequestDelivery(of: error)
    }

    /// Whether the server may have applied the request although its answer says nothing of
    /// it: a connection failure after the request may have been written, or a gateway's 502 or
    /// 504 (the server behind it may have taken the request). A write that failed this way is
    /// settled by looking before it is sent again.
    public var outcomeIsUnknown: Bool {
        switch self {
        case .connectionError: delivery == .unknown
        case .unexpectedStatus(let status, _): status == 502 || status == 504
        default: false
        }
    }

    /// What went wrong, with the server's `detail` text where there is one; for logs and alerts.
    public var description: String {
        switch self {
        case .connectionError(let error) where delivery == .unknown: "connection error after the request was sent (the outcome is unknown): \(error)"
        case .connectionError(let error): "connection error: \(error)"
        case .invalidArgument(let text): "invalid argument: \(text)"
        case .invalidResponse(let text): "invalid response: \(text)"
        case .fileError(let text): "file error: \(text)"
        default: "HTTP \(status ?? 0): \(detail)"
        }
    }
}

/// One entry of a 422 response's `detail` list (FastAPI's shape).
public struct ValidationIssue: Sendable, Hashable, Codable, CustomStringConvertible {
    /// Machine-readable kind, e.g. `missing`, `string_too_short`.
    public var type: String?
    /// Where: `["body", "password"]`.
    public var location: [String]
    /// Human-readable message.
    public var message: String

    enum CodingKeys: String, CodingKey {
        case type
        case location = "loc"
        case message = "msg"
    }

    /// Creates an issue.
    public init(type: String?, location: [String], message: String) {
        self.type = type
        self.location = location
        self.message = message
    }

    /// Decodes one entry of a 422 `detail` list; `loc` entries that are indexes become their decimal text.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        type = try container.decodeIfPresent(String.self, forKey: .type)
        message = try container.decodeIfPresent(String.self, forKey: .message) ?? ""
        // `loc` mixes strings and indexes: ["body", "items", 0].
        let raw = try container.decodeIfPresent([JSONValue].self, forKey: .location) ?? []
        location = raw.map { $0.stringValue ?? $0.integerValue.map(String.init) ?? "?" }
    }

    /// The message, after the dotted location when there is one (`body.email: …`).
    public var description: String {
        location.isEmpty ? message : "\(location.joined(separator: ".")): \(message)"
    }
}

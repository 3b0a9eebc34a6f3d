import Foundation
import Logging

/// How the client describes requests in its log: method, path (ids, never a query string or
/// credentials), status, duration.
enum RequestLog {
    static func metadata(_ request: APIRequest, status: Int? = nil) -> Logger.Metadata {
        var metadata: Logger.Metadata = ["http.method": "\(request.method.rawValue)", "http.path": "\(request.path)"]
        if let status { metadata["http.status"] = "\(status)" }
        return metadata
    }

    static func milliseconds(since start: ContinuousClock.Instant) -> String {
        let elapsed = ContinuousClock.now - start
        let milliseconds = Double(elapsed.components.seconds) * 1_000 + Double(elapsed.components.attoseconds) / 1e15
        return String(format: "%.1f ms", milliseconds)
    }

    static func seconds(_ value: TimeInterval) -> String {
        String(format: "%.2f s", value)
    }

    /// The error's kind, without the server's text.
    static func kind(of error: SelfDBError) -> String {
        switch error {
        case .connectionError: "connectionError"
        case .badRequest: "badRequest"
        case .authenticationError: "authenticationError"
        case .permissionDenied: "permissionDenied"
        case .notFound: "notFound"
        case .conflict: "conflict"
        case .internalServerError: "internalServerError"
        case .notAcceptable: "notAcceptable"
        case .payloadTooLarge: "payloadTooLarge"
        case .validationFailed(let issues): "validationFailed (\(issues.count) issue\(issues.count == 1 ? "" : "s"))"
        case .upgradeRequired: "upgradeRequired"
        case .rateLimited: "rateLimited"
        case .serviceUnavailable: "serviceUnavailable"
        case .unexpectedStatus(let status, _): "unexpectedStatus \(status)"
        case .invalidResponse: "invalidResponse"
        case .invalidArgument: "invalidArgument"
        case .fileError: "fileError"
        }
    }

    /// A transport error's kind: a URLError's code, or the error's type.
    static func describe(_ error: any Error) -> String {
        if let error = error as? URLError { return "URLError \(error.code.rawValue)" }
        return "\(type(of: error))"
    }
}

import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Turns an error response into a `SelfDBError`, keeping the server's text.
enum ErrorResponseMapper {
    static func error(status: Int, body: Data, headers: HTTPURLResponse, kinds: [Int: APIErrorKind]) -> SelfDBError {
        let json = try? JSONDecoder().decode(JSONValue.self, from: body)
        let detail = message(from: json) ?? String(decoding: body.prefix(500), as: UTF8.self)
        let retryAfter =
            RetryPolicy.parseRetryAfter(headers.value(forHTTPHeaderField: "Retry-After"))
            ?? json?["retry_after"]?.doubleValue
        let kind = kinds[status] ?? defaultKind(for: status)
        switch kind {
        case .badRequest: return .badRequest(detail)
        case .unauthorized: return .authenticationError(detail)
        case .forbidden: return .permissionDenied(detail)
        case .notFound: return .notFound(detail)
        case .notAcceptable: return .notAcceptable(detail)
        case .conflict: return .conflict(detail)
        case .payloadTooLarge: return .payloadTooLarge(detail)
        case .validation: return .validationFailed(issues(from: json, fallback: detail))
        case .upgradeRequired: return .upgradeRequired(detail)
        case .rateLimited: return .rateLimited(retryAfter: retryAfter, detail)
        case .unavailable: return .serviceUnavailable(retryAfter: retryAfter, detail)
        case .server: return .internalServerError(detail)
        case nil: return .unexpectedStatus(status, detail)
        }
    }

    private static func defaultKind(for status: Int) -> APIErrorKind? {
        switch status {
        case 500...599: .server
        default: nil
        }
    }

    /// `{"detail": "text"}`, `{"error": "text"}`, `{"message": "text"}` or a 422 list.
    private static func message(from json: JSONValue?) -> String? {
        guard let json else { return nil }
        for key in ["detail", "error", "message"] {
            if let text = json[key]?.stringValue { return text }
        }
        if let list = json["detail"]?.arrayValue {
            return list.compactMap { $0["msg"]?.stringValue }.joined(separator: "; ")
        }
        return nil
    }

    private static func issues(from json: JSONValue?, fallback: String) -> [ValidationIssue] {
        if let list = json?["detail"], let data = try? JSONEncoder().encode(list),
            let issues = try? JSONDecoder().decode([ValidationIssue].self, from: data)
        {
            return issues
        }
        return [ValidationIssue(type: nil, location: [], message: fallback)]
    }
}

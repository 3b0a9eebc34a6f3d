import EmulatorSupport
import Hummingbird

/// An error answer in SelfDB's shape: `{"detail": "text"}` or, for validation failures,
/// `{"detail": [issue, ...]}` with status 422.
struct APIError: Error, Sendable {
    var status: HTTPResponse.Status
    var body: JSONValue
    var headers: HTTPFields = [:]

    init(status: HTTPResponse.Status, detail: String, headers: HTTPFields = [:]) {
        self.status = status
        self.body = ["detail": .string(detail)]
        self.headers = headers
    }

    init(status: HTTPResponse.Status, body: JSONValue) {
        self.status = status
        self.body = body
    }

    /// 422 with FastAPI's list of issues.
    static func validation(_ issues: [ValidationIssue]) -> APIError {
        APIError(status: .unprocessableContent, body: ["detail": .array(issues.map(\.json))])
    }

    static func badRequest(_ detail: String) -> APIError { APIError(status: .badRequest, detail: detail) }
    static func unauthorized(_ detail: String) -> APIError { APIError(status: .unauthorized, detail: detail) }
    static func forbidden(_ detail: String) -> APIError { APIError(status: .forbidden, detail: detail) }
    static func notFound(_ detail: String = "Not Found") -> APIError { APIError(status: .notFound, detail: detail) }
    static func conflict(_ detail: String) -> APIError { APIError(status: .conflict, detail: detail) }

    /// What FastAPI's bearer dependency answers when no token came with the request.
    static let notAuthenticated = APIError(
        status: .unauthorized,
        detail: "Not authenticated",
        headers: [.wwwAuthenticate: "Bearer"]
    )

    /// What SelfDB answers for a token that does not verify.
    static let invalidCredentials = APIError(
        status: .unauthorized,
        detail: "Could not validate credentials",
        headers: [.wwwAuthenticate: "Bearer"]
    )

    var response: Response {
        var response = Response.json(body, status: status)
        for field in headers {
            response.headers[field.name] = field.value
        }
        return response
    }
}

/// A canned failure the emulator answers instead of handling a request; see
/// ``SelfDBEmulator/injectFault(_:method:path:count:)``.
public struct InjectedFault: Sendable, Equatable {
    /// The status code to answer with, e.g. 503 or 429.
    public var status: Int
    /// The `Retry-After` header value in seconds, or nil for no header.
    public var retryAfter: Int?
    /// The `detail` text of the JSON error body.
    public var detail: String

    /// Any status, optional `Retry-After` seconds, and the `detail` text.
    public init(status: Int, retryAfter: Int? = nil, detail: String) {
        self.status = status
        self.retryAfter = retryAfter
        self.detail = detail
    }

    /// `503 {"detail":"Service Unavailable"}` with an optional `Retry-After`.
    public static func serviceUnavailable(retryAfter: Int? = nil) -> InjectedFault {
        InjectedFault(status: 503, retryAfter: retryAfter, detail: "Service Unavailable")
    }

    /// `429 {"detail":"Too Many Requests"}` with an optional `Retry-After`.
    public static func tooManyRequests(retryAfter: Int? = nil) -> InjectedFault {
        InjectedFault(status: 429, retryAfter: retryAfter, detail: "Too Many Requests")
    }

    /// `500 {"detail":"Internal Server Error"}`.
    public static var internalServerError: InjectedFault {
        InjectedFault(status: 500, detail: "Internal Server Error")
    }
}

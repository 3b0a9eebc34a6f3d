import Foundation

/// What the fault proxy does to one request, the ways mobile networks fail.
public enum Fault: Sendable, Equatable, CustomStringConvertible {
    /// Forwards the request, lets the server answer in full (it has committed), then closes the
    /// client's connection without a byte of the answer: the request landed, the client
    /// cannot know.
    case loseAnswer
    /// Resets the client's connection before anything reaches the server: the request is
    /// read and dropped, and the connection ends with a RST.
    case resetBeforeRequest
    /// Forwards the request and sends the client the answer's head and `fraction` of its
    /// bytes, then closes the connection.
    case cutAnswer(fraction: Double)
    /// Forwards the request and holds the answer for `seconds` before sending it.
    case delayAnswer(seconds: Double)
    /// Answers `status` itself (with `Retry-After` when given) without forwarding: an
    /// overloaded server or gateway.
    case answer(status: Int, retryAfter: Int?)

    /// `503 Service Unavailable`, with an optional `Retry-After`.
    public static func serviceUnavailable(retryAfter: Int? = nil) -> Fault { .answer(status: 503, retryAfter: retryAfter) }
    /// `429 Too Many Requests`, with an optional `Retry-After`.
    public static func tooManyRequests(retryAfter: Int? = nil) -> Fault { .answer(status: 429, retryAfter: retryAfter) }

    /// Whether the server receives the request.
    public var forwards: Bool {
        switch self {
        case .resetBeforeRequest, .answer: false
        case .loseAnswer, .cutAnswer, .delayAnswer: true
        }
    }

    /// What the fault does, for a test's log: `lose the answer`.
    public var description: String {
        switch self {
        case .loseAnswer: "lose the answer"
        case .resetBeforeRequest: "reset before the request"
        case .cutAnswer(let fraction): "cut the answer at \(Int(fraction * 100)) %"
        case .delayAnswer(let seconds): "hold the answer \(seconds) s"
        case .answer(let status, let retryAfter): "answer \(status)\(retryAfter.map { " (Retry-After: \($0))" } ?? "")"
        }
    }
}

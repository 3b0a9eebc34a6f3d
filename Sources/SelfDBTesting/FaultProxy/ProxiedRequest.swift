import Foundation

/// One request the proxy saw, and what it did to it.
public struct ProxiedRequest: Sendable, CustomStringConvertible {
    /// Upper-case method.
    public var method: String
    /// The path, without the query.
    public var path: String
    /// Whether an earlier request came on the same client connection.
    public var reusedConnection: Bool
    /// The fault applied, if any.
    public var fault: Fault?
    /// The status the server answered, when the request was forwarded and answered.
    public var status: Int?
    /// Whether the proxy passed the whole answer on to the client.
    public var delivered = false

    /// The request and its fate, for a test's log: `POST /users/ (reused): lose the answer → 201`.
    public var description: String {
        "\(method) \(path)\(reusedConnection ? " (reused)" : "")\(fault.map { ": \($0)" } ?? "")\(status.map { " → \($0)" } ?? "")"
    }
}

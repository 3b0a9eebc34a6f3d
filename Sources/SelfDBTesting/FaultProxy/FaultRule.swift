import Foundation

/// When the fault proxy applies a fault: to which requests, on which connections, how often.
public struct FaultRule: Sendable {
    /// Which connections a rule applies to.
    public enum Connection: Sendable {
        /// Any.
        case any
        /// A kept-alive connection that carried a request before.
        case reused
        /// A connection's first request.
        case fresh
    }

    /// How often a matching request gets the fault.
    public enum Trigger: Sendable {
        /// Every time.
        case always
        /// The first `count` matching requests.
        case first(Int)
        /// Each matching request with this probability, drawn from the proxy's seeded generator.
        case probability(Double)
    }

    /// The method (`POST`), or nil for any.
    public var method: String?
    /// The path (without the query) starts with this.
    public var pathPrefix: String
    /// The path (without the query) contains this, when set: `"/data"` for a table's rows.
    public var pathContains: String?
    /// The connections it applies to.
    public var connection: Connection
    /// How often a matching request gets the fault.
    public var trigger: Trigger
    /// What is done to a request it picks.
    public var fault: Fault

    /// A rule that gives `fault` to the requests of `method` (any when nil) whose path starts
    /// with `pathPrefix` and contains `pathContains`, on `connection`, as often as `trigger`
    /// says (the first matching request by default).
    public init(
        _ fault: Fault,
        method: String? = nil,
        pathPrefix: String = "/",
        pathContains: String? = nil,
        connection: Connection = .any,
        trigger: Trigger = .first(1)
    ) {
        self.fault = fault
        self.method = method?.uppercased()
        self.pathPrefix = pathPrefix
        self.pathContains = pathContains
        self.connection = connection
        self.trigger = trigger
    }

    func matches(method: String, path: String, reused: Bool) -> Bool {
        if let wanted = self.method, wanted != method { return false }
        guard path.hasPrefix(pathPrefix) else { return false }
        if let pathContains, !path.contains(pathContains) { return false }
        switch connection {
        case .any: return true
        case .reused: return reused
        case .fresh: return !reused
        }
    }
}

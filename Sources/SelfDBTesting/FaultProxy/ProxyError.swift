/// A socket call of the fault proxy that failed.
public struct ProxyError: Error, CustomStringConvertible {
    /// The call.
    public var step: String
    /// `errno`.
    public var code: Int32
    /// `FaultProxy: bind failed (errno 98)`.
    public var description: String { "FaultProxy: \(step) failed (errno \(code))" }
}

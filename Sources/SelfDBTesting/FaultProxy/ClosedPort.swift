import Foundation

/// A port on 127.0.0.1 that refuses every connection: bound, never listening, and held for
/// the life of the value so nothing else takes it.
public final class ClosedPort: Sendable {
    /// The port.
    public let port: Int
    private let socket: ProxySocket

    /// Binds a port the kernel chooses.
    public init() throws {
        (socket, port) = try ProxySocket.bound()
    }

    /// `http://127.0.0.1:<port>`.
    public var baseURL: URL { URL(string: "http://127.0.0.1:\(port)") ?? URL(fileURLWithPath: "/") }

    deinit { socket.finish() }
}

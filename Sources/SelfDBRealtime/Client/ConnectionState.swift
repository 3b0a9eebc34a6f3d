/// Where the realtime socket is; see ``RealtimeClient/stateUpdates()``.
public enum ConnectionState: Sendable, Hashable {
    /// Opening the socket (first connect or a reconnect attempt).
    case connecting
    /// The socket is open; joined channels receive events.
    case connected
    /// The socket is closed, and why. Unless the reason is ``DisconnectReason/requested`` or
    /// ``DisconnectReason/notStarted``, the client is already trying to reconnect.
    case disconnected(DisconnectReason)
}

/// Why the socket is closed.
public enum DisconnectReason: Sendable, Hashable {
    /// `connect()` has not been called.
    case notStarted
    /// `disconnect()` was called.
    case requested
    /// The server closed the socket.
    case closedByServer
    /// The socket failed (network error, server gone).
    case connectionLost(String)
    /// The server stopped answering heartbeats.
    case heartbeatTimeout
    /// Opening the socket failed.
    case connectFailed(String)
}

extension ConnectionState: CustomStringConvertible {
    /// The state in a few words, for logs.
    public var description: String {
        switch self {
        case .connecting: "connecting"
        case .connected: "connected"
        case .disconnected(let reason): "disconnected (\(reason))"
        }
    }
}

extension DisconnectReason: CustomStringConvertible {
    /// The reason in a few words, for logs.
    public var description: String {
        switch self {
        case .notStarted: "not started"
        case .requested: "requested"
        case .closedByServer: "closed by the server"
        case .connectionLost(let detail): "connection lost: \(detail)"
        case .heartbeatTimeout: "heartbeat timeout"
        case .connectFailed(let detail): "connect failed: \(detail)"
        }
    }
}

extension DisconnectReason {
    /// The reason without the transport's text (which can quote the socket URL and its
    /// credentials), for logs.
    var logSummary: String {
        switch self {
        case .notStarted: "not started"
        case .requested: "requested"
        case .closedByServer: "closed by the server"
        case .connectionLost: "connection lost"
        case .heartbeatTimeout: "heartbeat timeout"
        case .connectFailed: "connect failed"
        }
    }
}

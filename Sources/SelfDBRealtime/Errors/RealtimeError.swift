/// What can go wrong on the realtime socket.
///
/// Calls throw the first four and ``unsupportedPlatform(_:)``; the rest arrive on ``RealtimeClient/problems()`` because they
/// happen on the socket rather than in a call (a frame the client cannot read, a row that does
/// not decode into its table model, a channel the server closed).
public enum RealtimeError: Error, Sendable, Hashable, CustomStringConvertible {
    /// A channel call needs an open socket; call ``RealtimeClient/connect()`` first.
    case notConnected
    /// The socket could not be opened (server down, refused upgrade, bad URL...).
    case connectionFailed(String)
    /// The server answered a `phx_join` with an error.
    case joinRefused(topic: String, reason: String)
    /// No `phx_reply` arrived in time for a join or leave.
    case replyTimeout(topic: String, event: String)
    /// The socket closed while a reply was awaited.
    case disconnected
    /// A frame the client could not read; the frame (shortened) is attached. The socket
    /// stays open: one bad frame does not end the connection.
    case malformedFrame(String)
    /// A change whose row did not decode into the table model of a typed stream.
    case undecodableRow(table: String, reason: String)
    /// The server reported an error on a joined channel (`phx_error`); it is joined again.
    case channelError(topic: String)
    /// This platform does not let the app open a WebSocket (watchOS, unless the app streams
    /// audio); the reason says what to do instead. ``RealtimeClient/connect()`` throws it at once
    /// and the client never retries it.
    case unsupportedPlatform(String)

    /// What went wrong, prefixed with `realtime:`.
    public var description: String {
        switch self {
        case .notConnected: "realtime: not connected; call connect() first"
        case .connectionFailed(let reason): "realtime: could not connect: \(reason)"
        case .joinRefused(let topic, let reason): "realtime: the server refused to join \(topic): \(reason)"
        case .replyTimeout(let topic, let event): "realtime: no reply to \(event) on \(topic) in time"
        case .disconnected: "realtime: the connection closed before the server replied"
        case .malformedFrame(let frame): "realtime: ignored a malformed frame: \(frame)"
        case .undecodableRow(let table, let reason): "realtime: a change on \(table) did not decode: \(reason)"
        case .channelError(let topic): "realtime: the server reported an error on \(topic); joining again"
        case .unsupportedPlatform(let reason): "realtime: not available on this platform: \(reason)"
        }
    }
}

extension RealtimeError {
    /// Whether trying again cannot help, so the client neither retries nor reconnects.
    var isPermanent: Bool {
        if case .unsupportedPlatform = self { true } else { false }
    }
}

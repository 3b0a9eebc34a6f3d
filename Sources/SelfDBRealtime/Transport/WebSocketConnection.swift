import Foundation

/// A message received on a WebSocket.
public enum WebSocketMessage: Sendable, Hashable {
    /// A text message.
    case text(String)
    /// A binary message (Phoenix JSON serializers never send one).
    case binary(Data)
}

/// An open WebSocket. The realtime client needs only this much, so tests and other platforms
/// can supply their own.
public protocol WebSocketConnection: Sendable {
    /// Messages from the server, in order. Finishes when the socket closes cleanly and throws
    /// when it fails. Iterated once.
    var messages: AsyncThrowingStream<WebSocketMessage, any Error> { get }
    /// Sends one text message; throws when the socket is closed.
    func send(_ text: String) async throws
    /// Closes the socket (with the close handshake where the implementation has one).
    func close() async
}

/// Opens WebSockets.
public protocol WebSocketConnector: Sendable {
    /// Opens a socket to `url` (`ws:` or `wss:`); returns once the upgrade succeeded.
    func connect(to url: URL) async throws -> any WebSocketConnection
}

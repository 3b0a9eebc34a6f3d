import EmulatorSupport
import Foundation
import NIOWebSocket

/// Who is connected and which topics they joined; fans changes out to them.
///
/// Broadcasting never waits on a socket: each connection drains its own outbox, so a slow
/// client cannot hold up an API request.
final class RealtimeHub: Sendable {
    /// What a connection's writer should do next.
    enum Outbound: Sendable {
        case text(String)
        case close(WebSocketErrorCode)
    }

    private struct Subscriber {
        var serializer: PhoenixSerializer
        var outbox: AsyncStream<Outbound>.Continuation
        /// Joined topics and the `join_ref` each was joined with.
        var topics: [String: JSONValue]
    }

    private let subscribers = Locked<[UUID: Subscriber]>([:])
    /// Test hook: when false, heartbeats go unanswered (to make clients time out).
    let answersHeartbeats = Locked(true)
    /// Test hook: when false, WebSocket upgrades are refused (a server whose realtime service
    /// is not reachable).
    let acceptsConnections = Locked(true)

    func register(_ id: UUID, serializer: PhoenixSerializer, outbox: AsyncStream<Outbound>.Continuation) {
        subscribers.withLock { $0[id] = Subscriber(serializer: serializer, outbox: outbox, topics: [:]) }
    }

    func unregister(_ id: UUID) {
        _ = subscribers.withLock { $0.removeValue(forKey: id) }
    }

    func join(_ id: UUID, topic: String, joinRef: JSONValue) {
        subscribers.withLock { $0[id]?.topics[topic] = joinRef }
    }

    func leave(_ id: UUID, topic: String) {
        _ = subscribers.withLock { $0[id]?.topics.removeValue(forKey: topic) }
    }

    /// Number of open realtime sockets.
    var connectionCount: Int {
        subscribers.withLock { $0.count }
    }

    /// Pushes a change of `table` to every socket that joined `table:<table>`.
    func broadcast(table: String, change: ChangeKind, new: JSONValue?, old: JSONValue?) {
        let topic = "table:\(table)"
        let payload: JSONValue = .object(
            JSONObject([
                ("event", .string(change.rawValue)),
                ("table", .string(table)),
                ("new", new ?? .null),
                ("old", old ?? .null),
            ])
        )
        let message = PhoenixMessage(
            joinRef: .null,
            ref: .null,
            topic: topic,
            event: change.rawValue.lowercased(),
            payload: payload
        )
        let frames: (v1: String, v2: String) = (PhoenixSerializer.v1.encode(message), PhoenixSerializer.v2.encode(message))
        subscribers.withLock { all in
            for subscriber in all.values where subscriber.topics[topic] != nil {
                subscriber.outbox.yield(.text(subscriber.serializer == .v1 ? frames.v1 : frames.v2))
            }
        }
    }

    /// Test hook: sends `text` as it is, as one text frame, to every open socket.
    func sendRaw(_ text: String) {
        subscribers.withLock { all in
            for subscriber in all.values {
                subscriber.outbox.yield(.text(text))
            }
        }
    }

    /// Closes every socket (used when the emulator stops, so clients see a disconnect).
    func closeAll() {
        subscribers.withLock { all in
            for subscriber in all.values {
                subscriber.outbox.yield(.close(.goingAway))
                subscriber.outbox.finish()
            }
        }
    }
}

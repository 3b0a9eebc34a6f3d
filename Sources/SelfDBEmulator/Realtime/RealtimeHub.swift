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
        /// The service behind the socket went away while it was open: SelfDB's proxy keeps
        /// such a socket open and nothing answers on it any more.
        var isSilenced = false
    }

    private let subscribers = Locked<[UUID: Subscriber]>([:])
    /// Test hook: when false, heartbeats go unanswered (to make clients time out).
    let answersHeartbeats = Locked(true)
    /// Test hook: when false, WebSocket upgrades are refused (a server whose realtime service
    /// is not reachable).
    let acceptsConnections = Locked(true)
    /// Test hook: when false, the realtime service behind the socket is down: an upgrade
    /// succeeds and the socket is closed at once, as SelfDB's backend proxy does.
    let serviceIsUp = Locked(true)
    /// Test hook: how late the `phx_close` of a channel ended by a leave or a second join is
    /// sent (zero: right after the reply), to play the order Phoenix can deliver them in.
    let channelCloseDelay = Locked(Duration.zero)
    /// Test counters since the start: WebSocket upgrades accepted (sockets closed at once
    /// included), and `phx_join` frames received.
    let upgradesAccepted = Locked(0)
    let joinsReceived = Locked(0)

    func register(_ id: UUID, serializer: PhoenixSerializer, outbox: AsyncStream<Outbound>.Continuation) {
        subscribers.withLock { $0[id] = Subscriber(serializer: serializer, outbox: outbox, topics: [:]) }
    }

    func unregister(_ id: UUID) {
        _ = subscribers.withLock { $0.removeValue(forKey: id) }
    }

    /// Joins `topic` for socket `id`; the `join_ref` of the join it replaces, if the socket had
    /// joined the topic already.
    func join(_ id: UUID, topic: String, joinRef: JSONValue) -> JSONValue? {
        joinsReceived.withLock { $0 += 1 }
        return subscribers.withLock { all in
            let earlier = all[id]?.topics[topic]
            all[id]?.topics[topic] = joinRef
            return earlier
        }
    }

    /// Leaves `topic` for socket `id`; the `join_ref` of the join it ends, if it was joined.
    func leave(_ id: UUID, topic: String) -> JSONValue? {
        subscribers.withLock { $0[id]?.topics.removeValue(forKey: topic) }
    }

    /// The service behind every open socket goes away: each stays open, silent.
    func silenceAll() {
        subscribers.withLock { all in
            for id in all.keys {
                all[id]?.isSilenced = true
                all[id]?.topics = [:]
            }
        }
    }

    /// Whether nothing answers on socket `id` any more.
    func isSilenced(_ id: UUID) -> Bool {
        subscribers.withLock { $0[id]?.isSilenced ?? true }
    }

    /// How many open sockets have joined `topic`.
    func joinedCount(topic: String) -> Int {
        subscribers.withLock { all in all.values.filter { $0.topics[topic] != nil }.count }
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

    /// Test hook: ends `topic`'s channel on every socket that joined it, as Phoenix does when a
    /// channel process crashes (`phx_error`) or the server closes it (`phx_close`), with the
    /// join's refs.
    func endChannels(topic: String, event: String) {
        subscribers.withLock { all in
            for (id, subscriber) in all {
                guard let joinRef = subscriber.topics[topic] else { continue }
                all[id]?.topics[topic] = nil
                let message = PhoenixMessage(joinRef: joinRef, ref: joinRef, topic: topic, event: event, payload: .object(JSONObject()))
                subscriber.outbox.yield(.text(subscriber.serializer.encode(message)))
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

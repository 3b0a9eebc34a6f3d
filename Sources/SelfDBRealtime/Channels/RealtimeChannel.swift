import Foundation
import SelfDBRuntime

/// A topic on the realtime socket, e.g. `table:orders`, with the handlers registered on it.
///
/// ```swift
/// let channel = selfdb.realtime.channel("table:orders")
///     .on(.insert) { payload in print("New order: \(payload.new ?? [:])") }
/// try await channel.subscribe()
/// ```
///
/// Handlers stay registered across reconnects: a subscribed channel is joined again each time
/// the socket reopens. They run on the realtime client's executor, so keep them short (hand
/// work to a task or an `AsyncStream`).
public final class RealtimeChannel: Sendable {
    /// The topic, e.g. `table:orders`.
    public let topic: String
    private let client: RealtimeClient
    private let state = Locked(State())

    struct Handler: Sendable {
        var id: UUID
        var event: RealtimeEvent
        var body: @Sendable (RealtimePayload) -> Void
    }

    private struct State {
        var handlers: [Handler] = []
        /// Called on every join the server accepts, with the number of joins so far.
        var joinHandlers: [(id: UUID, body: @Sendable (Int) -> Void)] = []
        /// `subscribe()` was called (and not `unsubscribe()`).
        var isSubscribed = false
        /// Typed streams reading this channel.
        var streamCount = 0
        /// The server accepted the join on the current socket.
        var isJoined = false
        /// Joins the server accepted, on any socket.
        var joins = 0
    }

    init(topic: String, client: RealtimeClient) {
        self.topic = topic
        self.client = client
    }

    /// Calls `handler` for every `event` pushed on this channel (`.all` for every change).
    /// Returns the channel, so registrations chain.
    @discardableResult
    public func on(_ event: RealtimeEvent, _ handler: @escaping @Sendable (RealtimePayload) -> Void) -> RealtimeChannel {
        addHandler(event, handler)
        return self
    }

    /// Calls `handler` each time the channel is joined again after it was joined before: after
    /// a reconnect, after the server ended the channel, after an unsubscribe. Changes made while
    /// it was not joined were not delivered (the server does not replay them): fetch what
    /// changed. Returns the channel, so registrations chain.
    @discardableResult
    public func onRejoin(_ handler: @escaping @Sendable () -> Void) -> RealtimeChannel {
        addJoinHandler { joins in if joins > 1 { handler() } }
        return self
    }

    /// Joins the topic (`phx_join`) and waits for the server's answer. Concurrent calls, and
    /// calls while the channel is joined, share one join.
    ///
    /// - Throws: ``RealtimeError/notConnected`` before `connect()`,
    ///   ``RealtimeError/joinRefused(topic:reason:)`` when the server refuses,
    ///   ``RealtimeError/replyTimeout(topic:event:)`` when it does not answer.
    public func subscribe() async throws {
        state.withLock { $0.isSubscribed = true }
        do {
            try await client.settle(self)
        } catch {
            state.withLock { $0.isSubscribed = false }
            throw error
        }
    }

    /// Leaves the topic (`phx_leave`): no more events arrive, here or on its typed streams.
    /// The handlers stay registered for a later `subscribe()`.
    public func unsubscribe() async throws {
        state.withLock { $0.isSubscribed = false }
        try await client.settle(self)
    }

    /// Whether the server has accepted the join on the current socket.
    public var isJoined: Bool { state.current.isJoined }

    // MARK: - Used by the client

    /// Whether the channel should be joined whenever the socket is open.
    var isWanted: Bool {
        let current = state.current
        return current.isSubscribed || current.streamCount > 0
    }

    func setJoined(_ joined: Bool) {
        state.withLock { $0.isJoined = joined }
    }

    /// The server accepted a join: events flow, and the join handlers hear of it (before any
    /// event of the new join is delivered: the client calls this on its executor, which also
    /// delivers the events).
    func joined() {
        let (handlers, joins) = state.withLock { state -> ([@Sendable (Int) -> Void], Int) in
            state.isJoined = true
            state.joins += 1
            return (state.joinHandlers.map(\.body), state.joins)
        }
        for handler in handlers { handler(joins) }
    }

    @discardableResult
    func addJoinHandler(_ body: @escaping @Sendable (Int) -> Void) -> UUID {
        let id = UUID()
        state.withLock { $0.joinHandlers.append((id, body)) }
        return id
    }

    func removeJoinHandler(_ id: UUID) {
        state.withLock { $0.joinHandlers.removeAll { $0.id == id } }
    }

    @discardableResult
    func addHandler(_ event: RealtimeEvent, _ body: @escaping @Sendable (RealtimePayload) -> Void) -> UUID {
        let id = UUID()
        state.withLock { $0.handlers.append(Handler(id: id, event: event, body: body)) }
        return id
    }

    func removeHandler(_ id: UUID) {
        state.withLock { $0.handlers.removeAll { $0.id == id } }
    }

    /// Counts a typed stream in or out; returns how many remain.
    func changeStreamCount(by delta: Int) -> Int {
        state.withLock { value in
            value.streamCount = max(0, value.streamCount + delta)
            return value.streamCount
        }
    }

    /// Runs the matching handlers for a pushed change (only while joined, so a left channel
    /// is silent even if the server still has a frame in flight).
    func deliver(_ payload: RealtimePayload) {
        let handlers = state.withLock { $0.isJoined ? $0.handlers : [] }
        for handler in handlers where handler.event.matches(payload.event) {
            handler.body(payload)
        }
    }
}

import EmulatorSupport
import Foundation
import HummingbirdWebSocket
import NIOWebSocket

/// One realtime socket: answers joins, leaves and heartbeats, forwards broadcasts, and
/// hangs up on protocol errors or when the client has been silent too long.
struct RealtimeConnection: Sendable {
    let hub: RealtimeHub
    let serializer: PhoenixSerializer
    let idleTimeout: Duration

    func run(inbound: WebSocketInboundStream, outbound: WebSocketOutboundWriter) async {
        hub.upgradesAccepted.withLock { $0 += 1 }
        guard hub.serviceIsUp.current else {
            // SelfDB's backend accepts the upgrade, then fails to reach Phoenix (a refused
            // connection takes it a few milliseconds) and closes.
            try? await Task.sleep(for: .milliseconds(5))
            try? await outbound.close(.unexpectedServerError, reason: "Proxy error: [Errno 111] Connect call failed ('127.0.0.1', 59999)")
            return
        }
        let id = UUID()
        let (outbox, continuation) = AsyncStream<RealtimeHub.Outbound>.makeStream()
        hub.register(id, serializer: serializer, outbox: continuation)
        defer { hub.unregister(id) }
        let lastHeard = Locked(ContinuousClock.now)

        await withTaskGroup(of: Void.self) { group in
            group.addTask {
                await read(inbound, id: id, lastHeard: lastHeard, outbox: continuation)
            }
            group.addTask {
                await watchIdle(lastHeard: lastHeard, outbox: continuation)
            }
            // The writer runs here: the socket lives exactly as long as it does.
            for await item in outbox {
                switch item {
                case .text(let text):
                    do {
                        try await outbound.write(.text(text))
                    } catch {
                        break
                    }
                    continue
                case .close(let code):
                    try? await outbound.close(code, reason: nil)
                }
                break
            }
            continuation.finish()
            group.cancelAll()
        }
    }

    private func read(
        _ inbound: WebSocketInboundStream,
        id: UUID,
        lastHeard: Locked<ContinuousClock.Instant>,
        outbox: AsyncStream<RealtimeHub.Outbound>.Continuation
    ) async {
        do {
            for try await message in inbound.messages(maxSize: 1 << 20) {
                lastHeard.withLock { $0 = .now }
                // The proxy forwards to a service that is gone: nothing comes back.
                if hub.isSilenced(id) { continue }
                guard case .text(let text) = message, let frame = serializer.decode(text) else {
                    outbox.yield(.close(.unacceptableData))
                    return
                }
                let closeDelay = hub.channelCloseDelay.current
                for reply in handle(frame, id: id) {
                    let text = serializer.encode(reply)
                    guard reply.event == "phx_close", closeDelay > .zero else {
                        outbox.yield(.text(text))
                        continue
                    }
                    // Phoenix's close comes from the ended channel's own process, and can
                    // come after frames sent later (the next join's reply).
                    Task {
                        try? await Task.sleep(for: closeDelay)
                        outbox.yield(.text(text))
                    }
                }
            }
        } catch {
            // A broken socket ends the connection like a clean close does.
        }
        outbox.finish()
    }

    private func watchIdle(lastHeard: Locked<ContinuousClock.Instant>, outbox: AsyncStream<RealtimeHub.Outbound>.Continuation)
        async
    {
        let tick = min(idleTimeout / 4, .seconds(1))
        while !Task.isCancelled {
            do {
                try await Task.sleep(for: tick)
            } catch {
                return
            }
            if ContinuousClock.now - lastHeard.current > idleTimeout {
                outbox.yield(.close(.goingAway))
                return
            }
        }
    }

    private func reply(to frame: PhoenixMessage, status: String, response: JSONValue = .object(JSONObject()))
        -> PhoenixMessage
    {
        PhoenixMessage(
            joinRef: frame.joinRef,
            ref: frame.ref,
            topic: frame.topic,
            event: "phx_reply",
            payload: .object(JSONObject([("status", .string(status)), ("response", response)]))
        )
    }

    /// The `phx_close` Phoenix sends when a channel ends: `ref` and `join_ref` are the join's.
    private func close(_ topic: String, joinRef: JSONValue) -> PhoenixMessage {
        PhoenixMessage(joinRef: joinRef, ref: joinRef, topic: topic, event: "phx_close", payload: .object(JSONObject()))
    }

    private func handle(_ frame: PhoenixMessage, id: UUID) -> [PhoenixMessage] {
        switch (frame.topic, frame.event) {
        case ("phoenix", "heartbeat"):
            return hub.answersHeartbeats.current ? [reply(to: frame, status: "ok")] : []
        case (_, "phx_join"):
            guard frame.topic.hasPrefix("table:"), frame.topic.count > "table:".count else {
                return [reply(to: frame, status: "error", response: ["reason": "unmatched topic"])]
            }
            // Phoenix answers a join of a topic the socket has joined by closing the earlier
            // channel: its `phx_close` follows the new join's reply (Phoenix.Socket's
            // duplicate-join path). A V1 join has no `join_ref`, so neither has that close.
            guard let earlier = hub.join(id, topic: frame.topic, joinRef: frame.joinRef) else { return [reply(to: frame, status: "ok")] }
            return [reply(to: frame, status: "ok"), close(frame.topic, joinRef: earlier)]
        case (_, "phx_leave"):
            // Left, the channel ends and Phoenix says so after the leave's reply.
            guard let ended = hub.leave(id, topic: frame.topic) else { return [reply(to: frame, status: "ok")] }
            return [reply(to: frame, status: "ok"), close(frame.topic, joinRef: ended)]
        default:
            return []
        }
    }
}

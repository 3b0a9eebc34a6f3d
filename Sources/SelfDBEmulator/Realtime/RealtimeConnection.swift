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
                guard case .text(let text) = message, let frame = serializer.decode(text) else {
                    outbox.yield(.close(.unacceptableData))
                    return
                }
                for reply in handle(frame, id: id) {
                    outbox.yield(.text(serializer.encode(reply)))
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

    private func handle(_ frame: PhoenixMessage, id: UUID) -> [PhoenixMessage] {
        switch (frame.topic, frame.event) {
        case ("phoenix", "heartbeat"):
            return hub.answersHeartbeats.current ? [reply(to: frame, status: "ok")] : []
        case (_, "phx_join"):
            guard frame.topic.hasPrefix("table:"), frame.topic.count > "table:".count else {
                return [reply(to: frame, status: "error", response: ["reason": "unmatched topic"])]
            }
            hub.join(id, topic: frame.topic, joinRef: frame.joinRef.isNull ? frame.ref : frame.joinRef)
            return [reply(to: frame, status: "ok")]
        case (_, "phx_leave"):
            hub.leave(id, topic: frame.topic)
            return [reply(to: frame, status: "ok")]
        default:
            return []
        }
    }
}

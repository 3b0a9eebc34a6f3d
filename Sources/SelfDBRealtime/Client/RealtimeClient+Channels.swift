import Foundation
import SelfDBRuntime

extension RealtimeClient {
    /// Brings `channel` to what its users want on the current socket (joined while it is
    /// subscribed or streamed, left otherwise), one join or leave on the wire at a time: any
    /// number of concurrent `subscribe()` and `unsubscribe()` calls end in one join (or none),
    /// and the channel's state says what the server holds.
    ///
    /// - Throws: the join's error when the channel is wanted and its join failed (refused, no
    ///   answer, not connected).
    func settle(_ channel: RealtimeChannel) async throws {
        while true {
            let membership = memberships[channel.topic] ?? ChannelMembership()
            if let operation = membership.operation {
                // The join or leave on the wire decides; its outcome is read on the next turn.
                do {
                    try await operation.value
                } catch {
                    // A wanted channel whose join failed: its callers hear why.
                    if membership.phase == .joining, channel.isWanted { throw error }
                }
                continue
            }
            switch (channel.isWanted, membership.phase) {
            case (true, .joined), (false, .left):
                return
            case (true, _):
                guard socket != nil else { throw RealtimeError.notConnected }
                startJoin(channel)
            case (false, _):
                guard socket != nil else {
                    memberships[channel.topic] = nil
                    return
                }
                startLeave(channel)
            }
        }
    }

    private func startJoin(_ channel: RealtimeChannel) {
        let ref = nextRef()
        let socketGeneration = generation
        var membership = memberships[channel.topic] ?? ChannelMembership()
        membership.phase = .joining
        membership.joinRef = ref
        membership.operation = Task { try await self.performJoin(channel, ref: ref, generation: socketGeneration) }
        memberships[channel.topic] = membership
    }

    private func performJoin(_ channel: RealtimeChannel, ref: String, generation socketGeneration: Int) async throws {
        let reply: (status: String, response: JSONValue)
        do {
            reply = try await request("phx_join", topic: channel.topic, ref: ref)
        } catch {
            if isCurrent(channel.topic, ref: ref, generation: socketGeneration) {
                memberships[channel.topic]?.markLeft()
                // No answer: the server may hold the channel, and a later join makes it close
                // that one (with no ref, on V1).
                if case RealtimeError.replyTimeout = error { memberships[channel.topic]?.strayCloses += 1 }
            }
            throw error
        }
        guard isCurrent(channel.topic, ref: ref, generation: socketGeneration) else { return }
        guard reply.status == "ok" else {
            configuration.logger.error("realtime join of \(channel.topic) refused")
            memberships[channel.topic]?.markLeft()
            throw RealtimeError.joinRefused(topic: channel.topic, reason: reply.response["reason"]?.stringValue ?? "\(reply.status) \(reply.response)")
        }
        memberships[channel.topic]?.phase = .joined
        memberships[channel.topic]?.operation = nil
        configuration.logger.info("realtime joined \(channel.topic)")
        provedHealthy()
        channel.joined()
    }

    /// Whether the join `ref` on socket `socketGeneration` is still the one `topic` waits for.
    private func isCurrent(_ topic: String, ref: String, generation socketGeneration: Int) -> Bool {
        socketGeneration == generation && memberships[topic]?.joinRef == ref
    }

    private func startLeave(_ channel: RealtimeChannel) {
        // Silent from now on, even if the server still pushes before it handles the leave.
        channel.setJoined(false)
        let socketGeneration = generation
        var membership = memberships[channel.topic] ?? ChannelMembership()
        let joinRef = membership.joinRef
        membership.phase = .leaving
        // Phoenix ends a left channel with a close after the leave's reply.
        membership.strayCloses += 1
        membership.operation = Task {
            _ = try? await self.request("phx_leave", topic: channel.topic, joinRef: joinRef)
            await self.finishLeave(channel.topic, generation: socketGeneration)
        }
        memberships[channel.topic] = membership
    }

    private func finishLeave(_ topic: String, generation socketGeneration: Int) {
        guard socketGeneration == generation, memberships[topic]?.phase == .leaving else { return }
        memberships[topic]?.markLeft()
    }

    /// A `phx_close` or `phx_error` for `topic`: when it ends the channel the server holds now
    /// (not one this client ended or replaced), the channel is no longer joined, and a wanted
    /// one is joined again after the backoff's delay for the server's consecutive ends (a
    /// channel whose process fails at once must not make a join storm).
    func channelEnded(topic: String, ref: String?, isClose: Bool) {
        guard var membership = memberships[topic], let channel = channels.current[topic] else { return }
        guard membership.endsCurrentChannel(ref: ref, isClose: isClose) else {
            memberships[topic] = membership
            return
        }
        membership.markLeft()
        let delay = configuration.reconnectBackoff.delay(attempt: membership.serverEnds)
        membership.serverEnds += 1
        memberships[topic] = membership
        channel.setJoined(false)
        if !isClose { report(.channelError(topic: topic)) }
        configuration.logger.info("realtime channel \(topic) \(isClose ? "closed" : "failed") by the server; joining again in \(delay)")
        let socketGeneration = generation
        Task {
            try? await Task.sleep(for: delay)
            // A later socket joins its wanted channels itself.
            guard await self.generation == socketGeneration else { return }
            await self.rejoin(channel)
        }
    }

    /// The channel of `topic` delivered an event: it works, and a later end by the server is
    /// met with the backoff's first delay.
    func channelDelivered(topic: String) {
        if memberships[topic]?.serverEnds != 0 { memberships[topic]?.serverEnds = 0 }
    }

    /// Joins a wanted channel again (a new socket, a channel the server ended); failures go to
    /// ``problems()``.
    func rejoin(_ channel: RealtimeChannel) async {
        guard channel.isWanted else { return }
        do {
            try await settle(channel)
        } catch RealtimeError.disconnected, RealtimeError.notConnected {
            // The socket dropped again; the next one rejoins.
        } catch let error as RealtimeError {
            report(error)
        } catch {
            report(.connectionFailed(String(describing: error)))
        }
    }
}

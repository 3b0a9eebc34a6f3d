import FlakyServerSupport
import Foundation
import SelfDB
import SelfDBEmulator
import SelfDBRuntime
import SelfDBTestSupport
import Testing

/// A backend that accepts the socket and closes it at once (SelfDB's, with its realtime
/// service down) must meet longer and longer waits, not a storm; the client is back soon
/// after the service, and at once when a trigger (the foreground, the network path) asks.
@Suite("reconnect backoff a flapping server cannot reset")
struct ReconnectBackoffTests {
    /// The most connection attempts exponential backoff allows in `outage`: one after each
    /// wait, every wait at its shortest (the jitter's fraction taken off), and one more for an
    /// attempt under way when the count is taken.
    static func allowedAttempts(in outage: Duration, by backoff: ReconnectBackoff) -> Int {
        let seconds = { (duration: Duration) in Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18 }
        var elapsed = 0.0
        var attempts = 0
        while true {
            let full = min(seconds(backoff.maximum), seconds(backoff.initial) * pow(backoff.multiplier, Double(attempts)))
            elapsed += full * (1 - backoff.jitter)
            guard elapsed <= seconds(outage) else { return attempts + 1 }
            attempts += 1
        }
    }

    /// A reply timeout shorter than the default's 10 s by default: a socket that never proves
    /// healthy is dropped after it, and the tests wait for that at most.
    static func configuration(_ backoff: ReconnectBackoff, replyTimeout: Duration = .seconds(3), triggers: [any ReconnectTrigger] = []) -> RealtimeConfiguration {
        RealtimeConfiguration(serializer: .v1, heartbeatInterval: .seconds(30), replyTimeout: replyTimeout, reconnectBackoff: backoff, reconnectTriggers: triggers)
    }

    @Test("realtime down for a while: attempts within exponential backoff's bound, and back within one maximum delay", arguments: RealtimeBackend.all)
    func outage(backend: RealtimeBackend) async throws {
        // The figures on a real server (1 s → 30 s, 60 s down: about 8 attempts); on
        // the emulator a scaled-down outage, so CI spends seconds on it.
        let (backoff, downtime): (ReconnectBackoff, Duration) =
            switch backend {
            case .emulator: (ReconnectBackoff(initial: .milliseconds(100), maximum: .milliseconds(800)), .seconds(4))
            case .real: (ReconnectBackoff(initial: .seconds(1), maximum: .seconds(30)), .seconds(60))
            }
        try await RealtimeServer.run(backend) { server in
            let client = try await SubscribedClient.start(on: server, Self.configuration(backoff))
            defer { client.stop() }
            let (channel, states) = (client.channel, client.states)

            let before = states.all.count
            let upgradesBefore = server.emulator?.realtimeUpgradeCount
            let down = ContinuousClock.now
            try await server.setServiceUp(false)
            try await Task.sleep(for: downtime - (ContinuousClock.now - down))
            // On a loaded 2-core machine (the whole suite at once) an attempt can take a second
            // or more: the outage then lasts until a second one was made, and the bound is
            // computed over the time it really lasted.
            try await waitUntil("a second attempt", within: .seconds(30)) {
                states.all[before...].filter { $0 == .connecting }.count >= 2
            }
            let attempts = states.all[before...].filter { $0 == .connecting }.count
            let lasted = ContinuousClock.now - down
            let bound = Self.allowedAttempts(in: lasted, by: backoff)
            try await server.setServiceUp(true)
            let up = ContinuousClock.now
            try await waitUntil("rejoined", within: backoff.maximum + .seconds(30)) { channel.isJoined }
            let back = ContinuousClock.now - up

            #expect(attempts <= bound, "\(attempts) attempts in \(lasted); exponential backoff allows \(bound)")
            if let upgradesBefore, let emulator = server.emulator {
                // Every attempt reached the server and was upgraded, then closed.
                #expect(emulator.realtimeUpgradeCount - upgradesBefore >= attempts - 1)
            }
            // One maximum delay, and the time the service takes to come up and a join to be
            // answered on a loaded machine.
            #expect(back <= backoff.maximum + .seconds(10), "rejoined \(back) after the service came back")
            print("realtime outage (\(backend.testDescription)): \(attempts) attempts in \(lasted) (bound \(bound)); rejoined \(back) after the service came back")

            try await client.expectEventsFlow(on: server, "after the outage")
        }
    }

    @Test("the service goes away behind an open socket that stays open and silent (SelfDB's proxy): the heartbeat finds it, and the client is back with the service")
    func silentSocket() async throws {
        let configuration = RealtimeConfiguration(
            serializer: .v1,
            heartbeatInterval: .seconds(2),
            replyTimeout: .seconds(2),
            reconnectBackoff: ReconnectBackoff(initial: .milliseconds(100), maximum: .milliseconds(800)),
            reconnectTriggers: []
        )
        try await RealtimeServer.run(.emulator) { server in
            let emulator = try #require(server.emulator)
            let client = try await SubscribedClient.start(on: server, configuration)
            defer { client.stop() }
            let (channel, states) = (client.channel, client.states)
            emulator.realtimeServiceIsUp = false
            _ = try await states.first { $0 == .disconnected(.heartbeatTimeout) }
            emulator.realtimeServiceIsUp = true
            try await waitUntil("rejoined") { channel.isJoined }
            try await client.expectEventsFlow(on: server, "back")
        }
    }

    @Test("a healthy socket starts the backoff again from its first delay")
    func healthyResets() async throws {
        let backoff = ReconnectBackoff(initial: .milliseconds(100), maximum: .seconds(8), multiplier: 4)
        try await RealtimeServer.run(.emulator) { server in
            let client = try await SubscribedClient.start(on: server, Self.configuration(backoff))
            defer { client.stop() }
            let (realtime, channel, states) = (client.selfdb.realtime, client.channel, client.states)
            // Long enough for the waits to reach the maximum: 0.1, 0.4, 1.6 and 6.4 s (at most
            // 8.5 s together, jitter only shortens them), then 4 to 8 s. The maximum is high so
            // that the bound below keeps a wide margin over a reconnect slowed by a loaded 2-core
            // machine (seen: 2.2 s for a 100 ms wait in a full run).
            try await server.setServiceUp(false)
            try await Task.sleep(for: .seconds(11))
            try await server.setServiceUp(true)
            try await waitUntil("rejoined") { channel.isJoined }
            // The join proved the new socket: the next drop is met with the first delay
            // (100 ms at most), not the maximum the outage reached (4 to 8 s with jitter).
            let connections = states.all.filter { $0 == .connected }.count
            try await server.setServiceUp(false)
            try await server.setServiceUp(true)
            let up = ContinuousClock.now
            try await waitUntil("reconnected after the short drop") { states.all.filter { $0 == .connected }.count > connections }
            try await waitUntil("rejoined after the short drop") { channel.isJoined }
            #expect(ContinuousClock.now - up < .seconds(4), "rejoined \(ContinuousClock.now - up) after a drop that followed a healthy socket")
            try await realtime.disconnect()
        }
    }

    @Test("a reconnect trigger (the app in the foreground, the network back) reconnects at once instead of at the end of the wait")
    func triggerReconnectsNow() async throws {
        let trigger = ManualTrigger()
        // The first wait is at least 15 s: only the trigger can bring the socket back sooner.
        // The default reply timeout: on a loaded machine a heartbeat answered after 3 s would
        // drop a good socket and meet that wait.
        let backoff = ReconnectBackoff(initial: .seconds(30), maximum: .seconds(60))
        try await RealtimeServer.run(.emulator) { server in
            let client = try await SubscribedClient.start(on: server, Self.configuration(backoff, replyTimeout: .seconds(10), triggers: [trigger]))
            defer { client.stop() }
            let (realtime, channel) = (client.selfdb.realtime, client.channel)
            try await server.setServiceUp(false)
            try await waitUntil("dropped") { !channel.isJoined }
            // A trigger while the service is still down: one attempt, closed again, and the
            // client goes back to waiting (no storm from triggers either).
            let upgrades = server.emulator?.realtimeUpgradeCount ?? 0
            trigger.fire()
            try await waitUntil("the triggered attempt") { (server.emulator?.realtimeUpgradeCount ?? 0) > upgrades }
            try await server.setServiceUp(true)
            try await Task.sleep(for: .milliseconds(500))
            #expect(!channel.isJoined, "nothing but the trigger may reconnect this early")
            let fired = ContinuousClock.now
            trigger.fire()
            try await waitUntil("rejoined after the trigger") { channel.isJoined }
            #expect(ContinuousClock.now - fired < .seconds(10))
            // Triggers while connected do nothing.
            let connected = server.emulator?.realtimeUpgradeCount ?? 0
            trigger.fire()
            try await Task.sleep(for: .milliseconds(200))
            #expect(server.emulator?.realtimeUpgradeCount == connected)
            try await realtime.disconnect()
        }
    }
}

/// A signed-in user's client, connected, with `table:realtime_notes` subscribed and its states
/// collected.
struct SubscribedClient {
    let selfdb: SelfDB
    let user: UserRead
    let channel: RealtimeChannel
    let states: Inbox<ConnectionState>
    private let reading: Task<Void, Never>

    static func start(on server: RealtimeServer, _ configuration: RealtimeConfiguration) async throws -> SubscribedClient {
        try await server.prepareTable(Note.self)
        let (selfdb, user) = try await server.newUser(realtime: configuration)
        let (states, reading) = Inbox<ConnectionState>.collecting(selfdb.realtime.stateUpdates())
        do {
            try await selfdb.realtime.connect()
            let channel = selfdb.realtime.channel("table:realtime_notes")
            try await channel.subscribe()
            return SubscribedClient(selfdb: selfdb, user: user, channel: channel, states: states, reading: reading)
        } catch {
            reading.cancel()
            throw error
        }
    }

    /// Another device of the user inserts a note with `body`: it must arrive on the channel.
    func expectEventsFlow(on server: RealtimeServer, _ body: String, sourceLocation: SourceLocation = #_sourceLocation) async throws {
        let received = Inbox<RealtimePayload>()
        channel.on(.insert) { received.append($0) }
        let device = try await server.otherDevice(of: user)
        _ = try await device.tables.data.insert(Note(id: UUID(), body: body, rank: 1, userId: user.id))
        #expect(try await received.first(sourceLocation: sourceLocation).new?["body"] == .string(body), sourceLocation: sourceLocation)
    }

    func stop() {
        reading.cancel()
        let realtime = selfdb.realtime
        Task { try? await realtime.disconnect() }
    }
}

/// A reconnect trigger a test fires by hand, as an app's foreground notification would.
final class ManualTrigger: ReconnectTrigger {
    private let continuations = Locked<[UUID: AsyncStream<Void>.Continuation]>([:])

    func signals() -> AsyncStream<Void> {
        let (stream, continuation) = AsyncStream<Void>.makeStream()
        let id = UUID()
        continuations.withLock { $0[id] = continuation }
        continuation.onTermination = { [weak self] _ in _ = self?.continuations.withLock { $0.removeValue(forKey: id) } }
        return stream
    }

    func fire() {
        for continuation in continuations.current.values { continuation.yield() }
    }
}

import Foundation
import SelfDB
import SelfDBRuntime
import SelfDBTestSupport
import Testing

/// What the client does when the platform gives it no socket, and when the app gives up on one
/// that is still opening.
@Suite("connectors: unsupported platforms and cancelled connects")
struct ConnectorLifecycleTests {
    /// Throws what watchOS's connector throws, counting the attempts.
    final class NoWebSockets: WebSocketConnector {
        let attempts = Locked(0)

        func connect(to url: URL) async throws -> any WebSocketConnection {
            attempts.withLock { $0 += 1 }
            throw RealtimeError.unsupportedPlatform("no WebSockets on this platform")
        }
    }

    @Test("a platform without WebSockets fails connect() at once with its own error, and the client never tries again")
    func unsupportedPlatformFailsFast() async throws {
        let connector = NoWebSockets()
        let listener = try SilentListener()
        let client = RealtimeClient(
            baseURL: listener.baseURL,
            configuration: RealtimeConfiguration(reconnectBackoff: ReconnectBackoff(initial: .milliseconds(10), jitter: 0), connector: connector),
            credentials: { (apiKey: "key", accessToken: nil) }
        )
        await #expect(throws: RealtimeError.unsupportedPlatform("no WebSockets on this platform")) {
            try await client.connect()
        }
        guard case .disconnected(.connectFailed(let reason)) = await client.state else {
            Issue.record("state is \(await client.state)")
            return
        }
        #expect(reason.contains("not available on this platform"))
        // Many backoff periods later, still the one attempt.
        try await Task.sleep(for: .milliseconds(300))
        #expect(connector.attempts.current == 1)
    }

    /// Before, `open()` ignored cancellation: a `disconnect()` during a connect to a server that
    /// never answers the upgrade left `connect()` waiting for the transport's timeout (none, for
    /// the NIO client: for ever). The time limit turns such a hang into a failure.
    @Test("disconnect() while the socket is opening ends the connect at once", .timeLimit(.minutes(1)))
    func disconnectDuringConnect() async throws {
        let listener = try SilentListener()
        let client = RealtimeClient(baseURL: listener.baseURL, credentials: { (apiKey: "key", accessToken: nil) })
        let states = client.stateUpdates()
        let connecting = Task { try await client.connect() }
        for await state in states where state == .connecting { break }
        // Let the connector get as far as waiting for the upgrade.
        try await Task.sleep(for: .milliseconds(200))
        try await client.disconnect()
        let outcome = await connecting.result
        #expect(throws: RealtimeError.disconnected) { try outcome.get() }
        #expect(await client.state == .disconnected(.requested))
    }
}

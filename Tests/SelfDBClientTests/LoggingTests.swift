import Foundation
import Logging
import SelfDB
import SelfDBEmulator
import SelfDBRuntime
import SelfDBTestSupport
import Testing

/// What the client and its realtime socket log: a readable trace at debug level, and never a
/// secret (API key, password, access or refresh token), not even in a failure's line.
@Suite("logging")
struct LoggingTests {
    @Test func aDebugTraceOfARealSessionHoldsNoSecret() async throws {
        try await ClientFixture.run(accessTokenLifetime: 12) { fixture in
            let lines = LogLines()
            let logger = Logger.capturing(lines)
            let selfdb = SelfDB(
                baseURL: fixture.emulator.baseURL,
                apiKey: ClientFixture.apiKey,
                retryPolicy: RetryPolicy(maxAttempts: 2, baseDelay: 0.01),
                // Every socket sends a heartbeat at once, and the test disconnects as soon as it
                // is logged; an interval this long keeps a reply slowed by a loaded machine from
                // being taken for a dead socket (with 1 s, a full run on 2 cores once dropped
                // the socket before the join was answered).
                realtime: RealtimeConfiguration(heartbeatInterval: .seconds(10)),
                logger: logger
            )

            let password = "Sup3rSecretPa55"
            let email = "logged-\(UUID().uuidString.prefix(8).lowercased())@example.com"
            _ = try await selfdb.auth.users.create(payload: UserCreate(email: email, password: password, firstName: "Log", lastName: "Ged"))
            let tokens = try await selfdb.auth.login(email: email, password: password)
            // A password the server refuses, whose 422 detail echoes it back.
            let refused = "short"
            await #expect(throws: SelfDBError.self) {
                _ = try await selfdb.auth.users.create(payload: UserCreate(email: "x-\(email)", password: refused, firstName: "No", lastName: "Pe"))
            }
            // A 503 answered by a retry.
            fixture.emulator.injectFault(.serviceUnavailable(), method: "GET", path: "/users/me")
            _ = try await selfdb.auth.me()
            // The access token comes within the client's 10 s leeway of expiring: the next
            // call refreshes it first.
            try await Task.sleep(for: .seconds(2.5))
            _ = try await selfdb.auth.me()
            let refreshed = try #require(await selfdb.session)

            try await selfdb.tables.create(from: Memo.self)
            try await selfdb.realtime.connect()
            try await selfdb.realtime.channel("table:\(Memo.tableName)").subscribe()
            let deadline = ContinuousClock.now + .seconds(30)
            while !lines.all.contains(where: { $0.contains("realtime heartbeat") }), ContinuousClock.now < deadline {
                try await Task.sleep(for: .milliseconds(20))
            }
            try await selfdb.realtime.disconnect()

            let trace = lines.all
            for expected in [
                "POST /users/ → 201", "POST /users/token → 200", "POST /users/ failed: 422 validationFailed", "POST /users/token/refresh → 200", "retrying GET /users/me",
                "refreshing the access token", "realtime connected", "realtime joined table:memos", "realtime heartbeat", "realtime disconnected: requested",
            ] {
                #expect(trace.contains { $0.contains(expected) }, "no line contains '\(expected)':\n\(trace.joined(separator: "\n"))")
            }
            let secrets = [ClientFixture.apiKey, password, refused, tokens.accessToken, tokens.refreshToken, refreshed.accessToken, refreshed.refreshToken].compactMap { $0 }
            for line in trace {
                for secret in secrets {
                    #expect(!line.contains(secret), "a secret reached the log: \(line)")
                }
            }
        }
    }

    @Test func disconnectingWhileReconnectingStopsTheAttemptsAndSaysSo() async throws {
        try await ClientFixture.run { fixture in
            let lines = LogLines()
            let selfdb = SelfDB(
                baseURL: fixture.emulator.baseURL,
                apiKey: ClientFixture.apiKey,
                // A first reconnect far off, so the client is still waiting for it when the app
                // disconnects.
                realtime: RealtimeConfiguration(heartbeatInterval: .milliseconds(200), reconnectBackoff: ReconnectBackoff(initial: .seconds(60), jitter: 0)),
                logger: .capturing(lines)
            )
            try await selfdb.realtime.connect()
            fixture.emulator.answersRealtimeHeartbeats = false
            let deadline = ContinuousClock.now + .seconds(30)
            while !lines.all.contains(where: { $0.contains("realtime reconnecting in") }), ContinuousClock.now < deadline {
                try await Task.sleep(for: .milliseconds(20))
            }
            try await selfdb.realtime.disconnect()

            let trace = lines.all
            #expect(trace.contains { $0.contains("realtime disconnected: heartbeat timeout") }, "\(trace.joined(separator: "\n"))")
            #expect(trace.last?.contains("realtime disconnected: requested (reconnecting stopped)") == true, "\(trace.joined(separator: "\n"))")
            #expect(await selfdb.realtime.state == .disconnected(.requested))
        }
    }

    @Test func nothingIsLoggedByDefault() async throws {
        // The default logger drops everything, whatever its level says.
        #expect(Logger.selfdbDisabled.handler is SwiftLogNoOpLogHandler)
    }
}

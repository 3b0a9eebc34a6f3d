import FlakyServerSupport
import Foundation
import SelfDB
import SelfDBEmulator
import SelfDBRuntime
import SelfDBTestSupport
import Testing

/// `auth.stateChanges`, and a session that a bad network never ends.
@Suite("the signed-in state")
struct AuthStateTests {
    /// Reads a stream's elements as they come, for a test to look at.
    final class Recorder: Sendable {
        let changes = Locked<[AuthChange]>([])
        private let task: Task<Void, Never>

        init(_ stream: AsyncStream<AuthChange>) {
            let changes = self.changes
            task = Task {
                for await change in stream { changes.withLock { $0.append(change) } }
            }
        }

        deinit { task.cancel() }

        /// Waits until `count` changes arrived (up to 20 s), and returns them.
        func first(_ count: Int) async throws -> [AuthChange] {
            _ = try await waitUntil { self.changes.current.count >= count }
            return changes.current
        }
    }

    static func expired(_ session: StoredSession) -> StoredSession {
        StoredSession(accessToken: session.accessToken, refreshToken: session.refreshToken, expiresAt: Date(timeIntervalSinceNow: -1))
    }

    @Test func theStreamTellsEachChangeOnceInOrder() async throws {
        try await ClientFixture.run { fixture in
            let store = InMemoryTokenStore()
            let selfdb = fixture.client(tokenStore: store)
            let recorder = Recorder(selfdb.auth.stateChanges)
            #expect(try await recorder.first(1) == [.initialSession(nil)])

            let (email, password) = ("state-\(UUID().uuidString.prefix(8).lowercased())@example.com", "Password123")
            let user = try await selfdb.auth.users.create(payload: UserCreate(email: email, password: password, firstName: "State", lastName: "Stream"))
            try await selfdb.auth.login(email: email, password: password)
            let signedIn = try #require(await selfdb.session)
            // A refresh (the token found expired before a call).
            await store.save(Self.expired(signedIn))
            _ = try await selfdb.auth.me()
            let refreshed = try #require(await selfdb.session)
            #expect(refreshed.refreshToken != signedIn.refreshToken)
            // The user changed by an admin, seen in the next answer that shows them.
            let admin = try await fixture.admin()
            _ = try await admin.auth.users.update(user.id, payload: UserUpdate(firstName: "Renamed"))
            _ = try await selfdb.auth.me()
            try await selfdb.auth.logout(refreshToken: refreshed.refreshToken)

            let changes = try await recorder.first(5)
            #expect(changes.count == 5, "\(changes)")
            guard changes.count == 5 else { return }
            #expect(changes[0] == .initialSession(nil))
            #expect(changes[1] == .signedIn(signedIn))
            #expect(changes[2] == .tokenRefreshed(refreshed))
            if case .userUpdated(let record) = changes[3] {
                #expect(record.user?.firstName == "Renamed")
            } else {
                Issue.record("expected userUpdated, got \(changes[3])")
            }
            #expect(changes[4] == .signedOut(.requested))
            // A stream made now starts from the stored session.
            #expect(try await Recorder(selfdb.auth.stateChanges).first(1) == [.initialSession(nil)])
        }
    }

    @Test func aRefusedRefreshEndsTheSessionWithItsReason() async throws {
        try await ClientFixture.run { fixture in
            let store = InMemoryTokenStore()
            let selfdb = fixture.client(tokenStore: store)
            try await selfdb.auth.login(email: ClientFixture.adminEmail, password: ClientFixture.adminPassword)
            let recorder = Recorder(selfdb.auth.stateChanges)
            let session = try #require(await selfdb.session)
            // Another client uses the refresh token first: SelfDB refuses this one later.
            _ = try await fixture.client().auth.refresh(refreshToken: try #require(session.refreshToken))
            await store.save(Self.expired(session))
            await #expect(throws: SelfDBError.self) { try await selfdb.auth.me() }
            #expect(await selfdb.session == nil)
            let changes = try await recorder.first(2)
            #expect(changes.last == .signedOut(.refreshRefused("Invalid or expired refresh token")), "\(changes)")
        }
    }

    /// Another process's sign-in, refresh and sign-out reach this process's stream, through the
    /// file they share (a second client on the same file stands for the other process).
    @Test func changesMadeThroughASharedFileArrive() async throws {
        try await ClientFixture.run { fixture in
            let url = FileManager.default.temporaryDirectory.appendingPathComponent("state-\(UUID().uuidString).json")
            defer { try? FileManager.default.removeItem(at: url) }
            let watching = fixture.client(tokenStore: FileTokenStore(url: url, pollInterval: .milliseconds(20)))
            let other = fixture.client(tokenStore: FileTokenStore(url: url))
            let recorder = Recorder(watching.auth.stateChanges)
            #expect(try await recorder.first(1) == [.initialSession(nil)])

            try await other.auth.login(email: ClientFixture.adminEmail, password: ClientFixture.adminPassword)
            let signedIn = try #require(await other.session)
            _ = try await recorder.first(2)
            let refreshed = try await other.auth.refresh(refreshToken: try #require(signedIn.refreshToken))
            _ = try await recorder.first(3)
            try await other.auth.logoutAll()
            let changes = try await recorder.first(4)
            #expect(changes.count == 4, "\(changes)")
            guard changes.count == 4 else { return }
            // Through the file, dates keep the precision of its JSON: the tokens are compared.
            if case .signedIn(let session) = changes[1] {
                #expect(session.refreshToken == signedIn.refreshToken)
            } else {
                Issue.record("expected signedIn, got \(changes[1])")
            }
            if case .tokenRefreshed(let session) = changes[2] {
                #expect(session.refreshToken == refreshed.refreshToken)
            } else {
                Issue.record("expected tokenRefreshed, got \(changes[2])")
            }
            #expect(changes[3] == .signedOut(.elsewhere))
            // And the watching client reads the other's session: signed out.
            #expect(await watching.session == nil)
        }
    }

    /// A refresh that meets a 503, a 500, a 429 or a connection reset keeps the session: the
    /// call fails with that error, no other refresh is sent during the backoff, and the first
    /// call after it refreshes.
    @Test(arguments: [Fault.serviceUnavailable(retryAfter: 1), .answer(status: 500, retryAfter: nil), .tooManyRequests(retryAfter: 1), .resetBeforeRequest])
    func aBadNetworkNeverEndsTheSession(_ fault: Fault) async throws {
        try await FlakyServer.run(.emulator) { server in
            let store = InMemoryTokenStore()
            let selfdb = SelfDB(baseURL: server.proxy.baseURL, apiKey: server.apiKey, tokenStore: store, retryPolicy: RetryPolicy(maxAttempts: 1, baseDelay: 1))
            try await selfdb.auth.login(email: FlakyServer.adminEmail, password: FlakyServer.adminPassword)
            let recorder = Recorder(selfdb.auth.stateChanges)
            let expired = Self.expired(try #require(await selfdb.session))
            await store.save(expired)
            server.proxy.add(FaultRule(fault, method: "POST", pathPrefix: "/users/token/refresh"))

            await #expect(throws: SelfDBError.self) { try await selfdb.auth.me() }
            #expect(await selfdb.session == expired, "the session is kept")
            // Within the backoff: no refresh is sent.
            await #expect(throws: SelfDBError.self) { try await selfdb.auth.me() }
            #expect(server.proxy.requests("POST", pathPrefix: "/users/token/refresh").count == 1)
            // After it, the next call refreshes and goes through.
            try await Task.sleep(for: .milliseconds(1_600))
            #expect(try await selfdb.auth.me().email == FlakyServer.adminEmail)
            #expect(server.proxy.requests("POST", pathPrefix: "/users/token/refresh").count == 2)
            let changes = try await recorder.first(2)
            #expect(!changes.contains { if case .signedOut = $0 { true } else { false } }, "\(changes)")
            #expect(changes.contains { if case .tokenRefreshed = $0 { true } else { false } })
        }
    }

    /// A token refreshed early (inside the leeway) whose refresh fails still serves until it
    /// expires: the call goes through with it.
    @Test func aTokenNotYetExpiredServesWhileItsRefreshFails() async throws {
        try await FlakyServer.run(.emulator) { server in
            let store = InMemoryTokenStore()
            let selfdb = SelfDB(baseURL: server.proxy.baseURL, apiKey: server.apiKey, tokenStore: store, retryPolicy: .none)
            try await selfdb.auth.login(email: FlakyServer.adminEmail, password: FlakyServer.adminPassword)
            let session = try #require(await selfdb.session)
            // Valid for 5 s more: inside the 10 s leeway, so a refresh is tried first.
            await store.save(StoredSession(accessToken: session.accessToken, refreshToken: session.refreshToken, expiresAt: Date(timeIntervalSinceNow: 5)))
            server.proxy.add(FaultRule(.serviceUnavailable(), method: "POST", pathPrefix: "/users/token/refresh"))
            #expect(try await selfdb.auth.me().email == FlakyServer.adminEmail)
            #expect(server.proxy.requests("POST", pathPrefix: "/users/token/refresh").count == 1)
            #expect(await selfdb.session?.accessToken == session.accessToken)
        }
    }
}

import Foundation

/// Keeps token refreshes to one per expiry: however many requests of this process find the
/// access token expired at once, one refresh runs and they all wait for it; and it runs under
/// the store's lock across processes (``TokenStore/withRefreshLock(_:)``), after reading the
/// store again, so a process whose tokens another process already refreshed takes those and
/// sends nothing.
///
/// Refreshing twice with one refresh token would be worse than slow: SelfDB rotates a refresh
/// token once, answers a later use 401, and revokes every session of the user when two uses
/// race. So a refresh token that may have reached the server is sent again only under the lock,
/// never beside another refresh.
///
/// Only a definite refusal ends the session: a 401 from the refresh endpoint (or another
/// 4xx but 408 and 429: the request itself was refused). A connection error, a timeout, a 5xx
/// or a 429 keeps it; the caller gets that error, and refreshes stay off for a backoff that
/// doubles with each such failure (from the retry policy's base delay to its maximum), so a
/// device in a tunnel does not hammer the server, and the next call after it tries again.
actor SessionCoordinator {
    /// Exchanges a refresh token for a new session.
    typealias Refresher = @Sendable (_ refreshToken: String) async throws -> StoredSession

    private let store: any TokenStore
    private let events: AuthChangeBroadcaster
    private let retryPolicy: RetryPolicy
    private var inFlight: Task<StoredSession, any Error>?
    /// After a refresh failed without a refusal: no new attempt before `until`.
    private var backoff: (until: ContinuousClock.Instant, failures: Int, error: any Error)?

    init(store: any TokenStore, events: AuthChangeBroadcaster, retryPolicy: RetryPolicy) {
        self.store = store
        self.events = events
        self.retryPolicy = retryPolicy
    }

    /// Whether the refresh running in this task is the coordinator's: its answer is stored and
    /// told by the coordinator, not by the request that fetched it.
    @TaskLocal static var isRefreshing = false

    /// A session other than `stale`: the current one if another caller (here or in another
    /// process) already refreshed, otherwise the result of one refresh. (Sessions are compared
    /// by both tokens: SelfDB's access tokens carry no issue time, so two refreshes in one
    /// second give the same access token, and a new refresh token each.) A refusal signs out and throws `authenticationError`; any other failure
    /// keeps the session and throws as it came (a connection error, a 5xx…).
    func refresh(replacing stale: StoredSession, using refresher: @escaping Refresher) async throws -> StoredSession {
        if let task = inFlight {
            return try await task.value
        }
        if let backoff, ContinuousClock.now < backoff.until {
            // Refreshed elsewhere since the failure? Then that session serves.
            if let current = await store.reload(), !current.hasTokens(of: stale) { return current }
            throw backoff.error
        }
        // Created and stored before any suspension, so concurrent callers find it.
        let (store, events) = (self.store, self.events)
        let task = Task<StoredSession, any Error> {
            try await store.withRefreshLock {
                try await Self.refreshUnderLock(replacing: stale, store: store, events: events, using: refresher)
            }
        }
        inFlight = task
        defer { inFlight = nil }
        do {
            let session = try await task.value
            backoff = nil
            return session
        } catch let error as SelfDBError where Self.isRefusal(error) || Self.isSignedOut(error) {
            backoff = nil
            throw error
        } catch is CancellationError {
            throw CancellationError()
        } catch {
            let failures = (backoff?.failures ?? 0) + 1
            let delay = retryPolicy.delay(afterAttempt: failures, retryAfter: (error as? SelfDBError)?.retryAfter)
            backoff = (ContinuousClock.now + .seconds(delay), failures, error)
            throw error
        }
    }

    /// The refresh itself, with the store locked against other processes.
    private static func refreshUnderLock(
        replacing stale: StoredSession,
        store: any TokenStore,
        events: AuthChangeBroadcaster,
        using refresher: Refresher
    ) async throws -> StoredSession {
        guard let current = await store.reload() else {
            throw SelfDBError.authenticationError("not signed in")
        }
        // Another process (or an earlier refresh here) replaced the stale session already.
        if !current.hasTokens(of: stale) { return current }
        guard let refreshToken = current.refreshToken else {
            await store.save(nil)
            events.post(.signedOut(.refreshRefused("the session expired and there is no refresh token")))
            throw SelfDBError.authenticationError("the session expired and there is no refresh token; sign in again")
        }
        do {
            let session = try await $isRefreshing.withValue(true) { try await refresher(refreshToken) }
            await store.save(session)
            events.post(.tokenRefreshed(session))
            return session
        } catch let error as SelfDBError where isRefusal(error) {
            // A store another process writes without this lock may hold newer tokens: those
            // serve, and are not thrown away.
            if let now = await store.reload(), now.refreshToken != refreshToken { return now }
            await store.save(nil)
            let detail = error.detail
            events.post(.signedOut(detail.localizedCaseInsensitiveContains("revoked") ? .sessionRevoked(detail) : .refreshRefused(detail)))
            throw SelfDBError.authenticationError("the session could not be refreshed (\(detail)); sign in again")
        }
    }

    /// Whether the refresh endpoint refused the token itself (the session is over), rather than
    /// failed to answer (the session stays).
    static func isRefusal(_ error: SelfDBError) -> Bool {
        guard let status = error.status else { return false }
        return (400..<500).contains(status) && status != 408 && status != 429
    }

    /// The refresh found no session, or ended it.
    private static func isSignedOut(_ error: SelfDBError) -> Bool {
        if case .authenticationError = error { return true }
        return false
    }
}

extension SelfDBError {
    /// The delay a 429 or 503 asked for.
    var retryAfter: TimeInterval? {
        switch self {
        case .rateLimited(let delay, _), .serviceUnavailable(let delay, _): delay
        default: nil
        }
    }
}

extension StoredSession {
    /// Whether this session holds `other`'s tokens (whatever either says of the expiry, which
    /// a file keeps to its JSON's precision).
    func hasTokens(of other: StoredSession) -> Bool {
        accessToken == other.accessToken && refreshToken == other.refreshToken
    }
}

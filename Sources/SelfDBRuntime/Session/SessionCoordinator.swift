import Foundation

/// Keeps token refreshes single-flight: however many requests find the access token expired
/// at once, one refresh call is made and they all wait for its result.
///
/// Refreshing twice with the same refresh token would be worse than slow: SelfDB revokes every
/// session of a user when a revoked refresh token is reused.
actor SessionCoordinator {
    /// Exchanges a refresh token for a new session.
    typealias Refresher = @Sendable (_ refreshToken: String) async throws -> StoredSession

    private let store: any TokenStore
    private var inFlight: Task<StoredSession, any Error>?

    init(store: any TokenStore) {
        self.store = store
    }

    /// A session whose access token is not `staleToken`: the current one if another caller
    /// already refreshed, otherwise the result of one refresh. On failure the session is
    /// cleared (signed out) and `authenticationError` thrown.
    func refresh(replacing staleToken: String, using refresher: @escaping Refresher) async throws -> StoredSession {
        if let task = inFlight {
            return try await task.value
        }
        // Created and stored before any suspension, so concurrent callers find it.
        let store = self.store
        let task = Task<StoredSession, any Error> {
            guard let current = await store.load() else {
                throw SelfDBError.authenticationError("not signed in")
            }
            if current.accessToken != staleToken { return current }
            guard let refreshToken = current.refreshToken else {
                await store.save(nil)
                throw SelfDBError.authenticationError("the session expired and there is no refresh token; sign in again")
            }
            do {
                let session = try await refresher(refreshToken)
                await store.save(session)
                return session
            } catch let error as SelfDBError {
                if case .connectionError = error { throw error }
                // The refresh token was refused (expired, revoked, reused): the session is over.
                await store.save(nil)
                throw SelfDBError.authenticationError("the session could not be refreshed (\(error.detail)); sign in again")
            }
        }
        inFlight = task
        defer { inFlight = nil }
        return try await task.value
    }
}

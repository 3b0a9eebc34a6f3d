import Foundation

/// Tells every ``APIClient/authChanges`` stream of one client what changed, each change once, in
/// the order it happened.
///
/// It keeps the session it last told of, so that a new stream's first element (the stored
/// session) and the changes after it agree however they interleave, and so that a change another
/// process made to a shared store is told as the change it is (a sign-in, a refresh, a
/// sign-out elsewhere).
final class AuthChangeBroadcaster: Sendable {
    private struct State {
        var streams: [Int: AsyncStream<AuthChange>.Continuation] = [:]
        var next = 0
        /// The session last told of; `.none` until known.
        var session: StoredSession??
        /// The signed-in user's record last seen in a response.
        var user: SessionUserRecord?
        /// Follows the store's changes made by other processes while a stream is open.
        var watcher: Task<Void, Never>?
    }

    private let state = Locked(State())
    private let store: any TokenStore

    init(store: any TokenStore) {
        self.store = store
    }

    /// A new stream: the stored session first, then every change.
    func stream() -> AsyncStream<AuthChange> {
        let (stream, continuation) = AsyncStream.makeStream(of: AuthChange.self, bufferingPolicy: .unbounded)
        let id = state.withLock { state in
            state.next += 1
            return state.next
        }
        continuation.onTermination = { [weak self] _ in self?.remove(id) }
        let store = self.store
        Task {
            let stored = await store.load()
            self.register(continuation, id: id, stored: stored)
        }
        return stream
    }

    /// Tells every stream of `change`, and remembers the session it leaves.
    func post(_ change: AuthChange) {
        state.withLock { state in
            switch change {
            case .signedIn(let session), .tokenRefreshed(let session): state.session = .some(session)
            case .signedOut: state.session = .some(nil)
            case .initialSession, .userUpdated: break
            }
            if case .signedOut = change { state.user = nil }
            for continuation in state.streams.values { continuation.yield(change) }
        }
    }

    /// A response showed the signed-in user: told as ``AuthChange/userUpdated(_:)`` when an
    /// earlier response showed them otherwise.
    func userSeen(_ record: SessionUserRecord) {
        let changed = state.withLock { state -> Bool in
            defer { state.user = record }
            guard let last = state.user, last.id == record.id else { return false }
            return last.json != record.json
        }
        if changed { post(.userUpdated(record)) }
    }

    private func register(_ continuation: AsyncStream<AuthChange>.Continuation, id: Int, stored: StoredSession?) {
        let startWatching = state.withLock { state -> Bool in
            let initial = state.session ?? stored
            state.session = .some(initial)
            continuation.yield(.initialSession(initial))
            state.streams[id] = continuation
            return state.watcher == nil
        }
        if startWatching { watch() }
    }

    private func remove(_ id: Int) {
        let watcher = state.withLock { state -> Task<Void, Never>? in
            state.streams[id] = nil
            guard state.streams.isEmpty else { return nil }
            defer { state.watcher = nil }
            return state.watcher
        }
        watcher?.cancel()
    }

    /// Follows what other processes store, while a stream is open.
    private func watch() {
        guard let changes = store.externalChanges() else { return }
        let task = Task { [weak self] in
            for await session in changes {
                guard let self else { return }
                self.tellExternal(session)
            }
        }
        let extra = state.withLock { state -> Task<Void, Never>? in
            guard state.watcher == nil, !state.streams.isEmpty else { return task }
            state.watcher = task
            return nil
        }
        extra?.cancel()
    }

    /// Another process stored `session`: the change it makes to what was last told.
    private func tellExternal(_ session: StoredSession?) {
        let last = state.withLock { $0.session ?? nil }
        switch (last, session) {
        case (nil, let new?): post(.signedIn(new))
        case (let old?, let new?) where old != new:
            let sameUser = AccessTokenClaims.subject(of: old.accessToken) == AccessTokenClaims.subject(of: new.accessToken)
            post(sameUser ? .tokenRefreshed(new) : .signedIn(new))
        case (_?, nil): post(.signedOut(.elsewhere))
        default: break
        }
    }
}

import Foundation

/// Where a client keeps its session between calls (and, for a persistent store, launches).
///
/// A store that several processes share (an app and its widget or share extension, over a
/// file in an app-group container) also says how they take turns: a refresh runs inside
/// ``withRefreshLock(_:)``, which such a store holds across processes, and re-reads the session
/// with ``reload()`` first, so that a process whose access token another one already refreshed
/// takes the new tokens instead of sending the old refresh token again. (SelfDB rotates refresh
/// tokens once, and revokes every session of the user when two refreshes with one token race.)
public protocol TokenStore: Sendable {
    /// The stored session, if any.
    func load() async -> StoredSession?
    /// Replaces the stored session; `nil` signs out.
    func save(_ session: StoredSession?) async
    /// The session as it is stored now, read again from where it is kept: another process may
    /// have changed it since ``load()`` last read it. By default, ``load()``.
    func reload() async -> StoredSession?
    /// Runs `body` while no other holder of this store runs its own: within the process for
    /// every store, across processes for a store they share. By default, `body` alone (the
    /// client keeps its refreshes single-flight within the process itself).
    func withRefreshLock<T: Sendable>(_ body: @Sendable () async throws -> T) async throws -> T
    /// The sessions another process stored, as they happen (a sign-in, a refresh, a sign-out
    /// elsewhere), for as long as the stream is iterated; nil when the store cannot tell.
    func externalChanges() -> AsyncStream<StoredSession?>?
}

extension TokenStore {
    /// ``load()``: a store that only this process writes has nothing newer.
    public func reload() async -> StoredSession? { await load() }

    /// Runs `body`: a store that only this process uses needs no lock across processes.
    public func withRefreshLock<T: Sendable>(_ body: @Sendable () async throws -> T) async throws -> T {
        try await body()
    }

    /// None: no other process writes this store.
    public func externalChanges() -> AsyncStream<StoredSession?>? { nil }
}

/// Keeps the session in memory: the default on Linux, and the store of a client whose session
/// must not outlive the process.
public actor InMemoryTokenStore: TokenStore {
    private var session: StoredSession?

    /// Creates an empty store, or one holding `session`.
    public init(_ session: StoredSession? = nil) {
        self.session = session
    }

    public func load() -> StoredSession? { session }

    public func save(_ session: StoredSession?) { self.session = session }
}

/// The store a client keeps its session in when the app gives none: the Keychain on Apple
/// platforms (`KeychainTokenStore`, one item per server), so the app stays signed in across
/// launches; memory elsewhere (``FileTokenStore`` persists it there).
public func platformTokenStore(for baseURL: URL) -> any TokenStore {
    #if canImport(Security)
    KeychainTokenStore(account: baseURL.absoluteString)
    #else
    InMemoryTokenStore()
    #endif
}

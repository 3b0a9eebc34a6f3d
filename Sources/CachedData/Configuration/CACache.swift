import Foundation
import Logging
import SelfDBCache
import SelfDBRuntime

/// One cache file: the `SelfDBCache` engine under CachedData's API, plus what CachedData
/// adds on top of it — registering item types as they are used and replaying the queue of
/// pending mutations by itself.
///
/// Apps normally never name it: `CachedData.configure(databasePath:)` sets the shared one,
/// which fetchers and ``CAHandlers/shared`` use. Open others for tests or for several users
/// on one device, and hand them to `CAFetcher(…, cache:)` and `CAHandlers(cache:)`.
public final class CACache: Sendable {
    let engine: SelfDBCache
    private let registered = Locked<Set<String>>([])
    private let retry: RetryTimer

    /// Opens (or creates) the cache file at `databasePath`.
    ///
    /// - Parameters:
    ///   - databasePath: the SQLite file of the cache; created if missing.
    ///   - retryInterval: how long to wait before sending pending mutations again after the
    ///     server could not be reached; doubled after each failed try, up to 64 times.
    ///   - logger: where the cache reports queue replays and rollbacks (silent by default).
    /// - Throws: `CAFetchError.storage` if the file cannot be opened as a cache.
    public init(databasePath: String, retryInterval: Duration = .seconds(5), logger: Logger = .selfdbDisabled) throws(CAFetchError) {
        do {
            engine = try SelfDBCache(path: databasePath, logger: logger)
        } catch {
            throw CAFetchError(error)
        }
        retry = RetryTimer(interval: retryInterval)
    }

    /// How many mutations wait for the server.
    public func pendingMutationCount() throws(CAFetchError) -> Int {
        do { return try engine.pendingMutationCount() } catch { throw CAFetchError(error) }
    }

    /// Sends the pending mutations now, in order, until done or the server cannot be reached.
    /// The cache does this by itself (after each fetch that reached the server, and on a
    /// retry timer while offline); call it when you know better, e.g. on a reachability change.
    ///
    /// - Returns: how many were sent, refused (and rolled back) and are still pending.
    @discardableResult
    public func replayPendingMutations() async -> (sent: Int, refused: Int, pending: Int) {
        let report = await engine.synchronize()
        if case .offline? = report.stoppedBy { scheduleRetry() } else if report.remaining == 0 { retry.reset() }
        return (report.sent, report.rejected.count, report.remaining)
    }

    /// Makes `Item`'s queued mutations sendable (once per type). Fetchers and handlers call it;
    /// call it at launch for types with queued mutations that no screen shows yet.
    public func register<Item: CAItem>(_ type: Item.Type) async {
        guard registered.withLock({ $0.insert(Item.typeName).inserted }) else { return }
        if let mutable = type as? any CAMutableItem.Type {
            await registerMutations(mutable)
        }
    }

    private func registerMutations<Item: CAMutableItem>(_ type: Item.Type) async {
        await engine.register(CacheEntry<Item>.self, mutations: MutationBridge.mutations(Item.self))
    }

    /// The server answered a fetch: whatever is pending can go now.
    func serverAnswered() {
        guard ((try? engine.pendingMutationCount()) ?? 0) > 0 else { return }
        Task { [weak self] in await self?.replayPendingMutations() }
    }

    /// Tries again later, once: a timer already waiting stays.
    func scheduleRetry() {
        retry.schedule { [weak self] in
            guard let self else { return false }
            let report = await self.engine.synchronize()
            if case .offline? = report.stoppedBy { return true }
            return false
        }
    }
}

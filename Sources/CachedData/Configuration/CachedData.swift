import Foundation
import SelfDBRuntime

/// Where the cache lives. Call ``configure(databasePath:)`` once at launch, before any fetcher
/// or handler is used; without it the cache lives at ``defaultDatabasePath``.
///
/// ```swift
/// try CachedData.configure(databasePath: url.appendingPathComponent("cache.sqlite").path)
/// ```
public enum CachedData {
    private static let configured = Locked<CACache?>(nil)

    /// Opens the cache file at `databasePath` and makes it the one fetchers and
    /// ``CAHandlers/shared`` use from now on (fetchers set up before keep theirs). The
    /// folder must exist.
    ///
    /// - Throws: `CAFetchError.storage` if the file cannot be opened as a cache.
    public static func configure(databasePath: String) throws(CAFetchError) {
        let cache = try CACache(databasePath: databasePath)
        configured.withLock { $0 = cache }
    }

    /// The cache file used when ``configure(databasePath:)`` was never called: in a folder
    /// named after the app's bundle identifier (or, without one, the executable) inside
    /// ``defaultBaseFolder``.
    public static var defaultDatabasePath: String {
        let app = Bundle.main.bundleIdentifier ?? ProcessInfo.processInfo.processName
        return defaultBaseFolder.appendingPathComponent(app).appendingPathComponent("CachedData").appendingPathComponent("cache.sqlite").path
    }

    /// The per-user folder the default cache lives under:
    /// - macOS, iOS, watchOS, visionOS: Application Support (`~/Library/Application Support`),
    ///   kept across launches and included in backups.
    /// - tvOS: Caches. tvOS promises no persistent local storage to apps: the system may purge
    ///   Caches whenever the app is not running, and with it the cached items **and the
    ///   mutations not yet sent**. A tvOS app should sync its queue before going to the
    ///   background (``pendingMutationCount()`` tells whether anything waits) and treat the
    ///   cache as a speed-up only.
    /// - Linux: `$XDG_DATA_HOME`, or `~/.local/share`.
    public static var defaultBaseFolder: URL {
        #if os(tvOS)
        let searched = FileManager.default.urls(for: .cachesDirectory, in: .userDomainMask).first
        #else
        let searched = FileManager.default.urls(for: .applicationSupportDirectory, in: .userDomainMask).first
        #endif
        #if canImport(Darwin)
        // On Apple platforms the lookup always answers for the user domain; the temporary
        // folder only keeps this free of a force unwrap. (`homeDirectoryForCurrentUser` is
        // macOS-only, so it must not appear here.)
        return searched ?? FileManager.default.temporaryDirectory
        #else
        return searched ?? FileManager.default.homeDirectoryForCurrentUser.appendingPathComponent(".local/share")
        #endif
    }

    /// How many mutations of the configured cache wait for the server.
    public static func pendingMutationCount() throws(CAFetchError) -> Int {
        try shared().pendingMutationCount()
    }

    /// Makes `Item`'s queued mutations sendable before any fetcher or handler of it is used
    /// (they register their type themselves): call it at launch for item types with mutations
    /// queued in an earlier run that no screen may show soon, so the queue is not held up.
    public static func register<Item: CAItem>(_ type: Item.Type) async throws(CAFetchError) {
        let cache = try shared()
        await cache.register(type)
    }

    /// The configured cache, or the one at the default path (created with its folders).
    static func shared() throws(CAFetchError) -> CACache {
        if let cache = configured.withLock({ $0 }) { return cache }
        let path = defaultDatabasePath
        do {
            try FileManager.default.createDirectory(atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        } catch {
            throw .storage("cannot create the cache folder for \(path): \(error)")
        }
        let cache = try CACache(databasePath: path)
        return configured.withLock { current in
            if let current { return current }
            current = cache
            return cache
        }
    }
}

import Foundation
import Logging
import SelfDBRuntime

/// Everything a ``SynchroClient`` needs: where its database lives, which server it syncs
/// with, who the user is, and how often to sync.
public struct SynchroConfig: Sendable {
    /// Path to the SQLite database file (created if missing).
    public var dbPath: String
    /// The sync server's base URL.
    public var serverURL: URL
    /// Returns a JWT for the current user; asked before every request (and again after a 401).
    public var authProvider: @Sendable () async throws -> String
    /// A stable, unique identifier of this device (installation).
    public var clientID: String
    /// Platform name sent during registration.
    public var platform: String
    /// Semantic version of the app, sent as `X-App-Version` with every request.
    public var appVersion: String
    /// Seconds between sync cycles while started.
    public var syncInterval: TimeInterval
    /// Seconds after a local write before a cycle pushes it.
    public var pushDebounce: TimeInterval
    /// Attempts of a failing cycle before the client reports an error and gives up until the
    /// next trigger.
    public var maxRetryAttempts: Int
    /// Records per pull page (capped at 1000). With a protocol-2 server it is the size of a
    /// run's first pull or rebuild page: the next ones grow while the server answers full
    /// pages quickly, up to 1000, and shrink back when it slows down.
    public var pullPageSize: Int
    /// Pending changes per push request (capped at 1000). With a protocol-2 server it is the
    /// size of a cycle's first batch: the next ones grow while the server answers quickly, up
    /// to 1000, as pull pages do.
    public var pushBatchSize: Int
    /// A database file to start from when none exists at `dbPath` (bundled with the app, made
    /// by the Synchro seed generator or copied from a synced client): it is copied to `dbPath`
    /// at `init` (without `-wal`/`-shm` files), readable and writable offline at once, and
    /// reconciled at `start()`. Ignored when `dbPath` exists or the seed file does not.
    public var seedDatabasePath: String?
    /// Records per snapshot page (capped at 1000), with a protocol-1 server. A protocol-2
    /// rebuild pages by `pullPageSize`, as the official 0.3.0 client does.
    public var snapshotPageSize: Int
    /// Where sync reports what it does: each request at debug, cycles at info (what was
    /// pushed and pulled), retries at info, failures at error. Never the token or a record's
    /// values. Silent by default.
    public var logger: Logger

    /// Creates a configuration; the defaults are those of the Synchro client.
    public init(
        dbPath: String,
        serverURL: URL,
        authProvider: @escaping @Sendable () async throws -> String,
        clientID: String,
        platform: String = "ios",
        appVersion: String,
        syncInterval: TimeInterval = 30,
        pushDebounce: TimeInterval = 0.5,
        maxRetryAttempts: Int = 5,
        pullPageSize: Int = 100,
        pushBatchSize: Int = 100,
        seedDatabasePath: String? = nil,
        snapshotPageSize: Int = 100,
        logger: Logger = .selfdbDisabled
    ) {
        self.logger = logger
        self.dbPath = dbPath
        self.serverURL = serverURL
        self.authProvider = authProvider
        self.clientID = clientID
        self.platform = platform
        self.appVersion = appVersion
        self.syncInterval = syncInterval
        self.pushDebounce = pushDebounce
        self.maxRetryAttempts = maxRetryAttempts
        self.pullPageSize = pullPageSize
        self.pushBatchSize = pushBatchSize
        self.seedDatabasePath = seedDatabasePath
        self.snapshotPageSize = snapshotPageSize
    }

    /// The page and batch sizes the server accepts: 1 to 1000.
    static func clamped(_ size: Int) -> Int { min(max(size, 1), 1000) }
}

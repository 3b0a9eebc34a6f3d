import Foundation
import SynchroEmulator

extension SelfDBEmulator {
    /// The account the emulator makes sure exists (with role ADMIN) when it starts.
    public struct AdminAccount: Sendable, Equatable {
        public var email: String
        public var password: String
        public var firstName: String
        public var lastName: String

        public init(email: String, password: String, firstName: String = "Admin", lastName: String = "User") {
            self.email = email
            self.password = password
            self.firstName = firstName
            self.lastName = lastName
        }
    }

    /// How to run an emulator.
    public struct Configuration: Sendable {
        /// Where the SQLite database, uploaded files and backup archives (`backups/`) live. `nil` uses a fresh temporary
        /// directory that ``SelfDBEmulator/stop()`` deletes.
        public var dataDirectory: URL?
        /// The value every request must send in `X-API-Key`.
        public var apiKey: String
        /// Created as ADMIN on start if no user has this email yet.
        public var admin: AdminAccount?
        /// TCP port on 127.0.0.1; `0` picks a free one (read it from ``SelfDBEmulator/port``).
        public var port: Int
        /// Lifetime of access tokens (`expires_in`, the JWT `exp`). Tests can set ~1 s to
        /// exercise refresh; it can also be changed on a running emulator.
        public var accessTokenLifetime: TimeInterval
        /// Lifetime of refresh tokens.
        public var refreshTokenLifetime: TimeInterval
        /// A realtime socket that sends nothing (not even a heartbeat) for this long is
        /// closed. SelfDB uses 45 s; tests can use ~1 s.
        public var realtimeIdleTimeout: TimeInterval
        /// PBKDF2-HMAC-SHA256 iterations for new password hashes. Existing hashes keep
        /// the count they were made with.
        public var passwordHashIterations: Int
        /// Largest JSON body accepted before answering 413.
        public var maximumJSONBodySize: Int
        /// No longer read: a backup to restore is spooled to disk as it arrives, as a stored
        /// file is, and limited by ``maximumFileSize``.
        @available(*, deprecated, message: "a backup to restore is spooled to disk and limited by maximumFileSize")
        public var maximumUploadSize: Int {
            get { ignoredUploadSize }
            set { ignoredUploadSize = newValue }
        }
        private var ignoredUploadSize: Int
        /// Largest upload (`/storage/files/upload`, `/backups/restore`; spooled to disk as it
        /// arrives) accepted before answering 413. SelfDB v0.0.5 sets none; 1 TiB by default.
        public var maximumFileSize: Int
        /// Called after every HTTP request with what was answered and how long it took
        /// (the executable logs from here).
        public var requestHandler: (@Sendable (RecordedRequest, Duration) -> Void)?
        /// Specs whose `sync:` tables the Synchro server serves on `/sync/*` (same port, no
        /// API key). Empty turns the sync server off. Loaded and validated on start: a
        /// spec with errors fails the start with ``SelfDBEmulator/StartError/syncSpecInvalid(_:)``.
        public var syncSpecs: [URL]
        /// When set, `/sync/*` also accepts any HS256 JWT signed with this secret (its `sub`
        /// is the user id), besides the emulator's own access tokens.
        public var syncJWTSecret: String?
        /// When set (a semantic version such as `1.2.0`), `/sync/*` answers 426 to an
        /// `X-App-Version` below it or not a version; a request without the header passes.
        public var syncMinimumAppVersion: String?
        /// How far (seconds) a client's clock may lag the server's and still win a
        /// last-write-wins conflict: `client_updated_at + tolerance` is compared. Nil: the
        /// protocol's own default, 5 s for protocol 1 (Synchro 0.1) and 0.5 s for protocol 2
        /// (Synchro 0.3's `synchro.clock_skew_tolerance_ms`).
        public var syncClockSkewTolerance: TimeInterval?
        /// The Synchro protocol `/sync/*` speaks: 2 (Synchro 0.3, what servers deployed today
        /// speak: connect, scopes, signed cursors, checksums; the default) or 1 (Synchro 0.1:
        /// register, snapshot, one checkpoint). One data
        /// folder can be served with either: rows written under one are there under the other.
        public var syncProtocol: SyncProtocol
        /// What protocol 2's push does when a value cannot be written (a primary key or a
        /// uuid column that is not a UUID, a value of the wrong type): roll the whole batch
        /// back and answer 500 `{"error":"internal error"}`, as Synchro 0.3.0 does (the
        /// default), or reject only that mutation with `validation_failed`.
        public var syncPushWriteErrors: SyncPushWriteErrors
        /// Every HTTP response (SelfDB and Synchro) is held back this long, to make a slow
        /// network visible in tests and demos.
        public var responseLatency: Duration

        public init(
            dataDirectory: URL? = nil,
            apiKey: String,
            admin: AdminAccount? = nil,
            port: Int = 0,
            accessTokenLifetime: TimeInterval = 30 * 60,
            refreshTokenLifetime: TimeInterval = 7 * 24 * 60 * 60,
            realtimeIdleTimeout: TimeInterval = 45,
            passwordHashIterations: Int = 10_000,
            maximumJSONBodySize: Int = 2 << 20,
            maximumUploadSize: Int = 100 << 20,
            maximumFileSize: Int = 1 << 40,
            requestHandler: (@Sendable (RecordedRequest, Duration) -> Void)? = nil,
            syncSpecs: [URL] = [],
            syncJWTSecret: String? = nil,
            syncMinimumAppVersion: String? = nil,
            syncClockSkewTolerance: TimeInterval? = nil,
            syncProtocol: SyncProtocol = .two,
            syncPushWriteErrors: SyncPushWriteErrors = .rollBackBatch,
            responseLatency: Duration = .zero
        ) {
            self.dataDirectory = dataDirectory
            self.apiKey = apiKey
            self.admin = admin
            self.port = port
            self.accessTokenLifetime = accessTokenLifetime
            self.refreshTokenLifetime = refreshTokenLifetime
            self.realtimeIdleTimeout = realtimeIdleTimeout
            self.passwordHashIterations = passwordHashIterations
            self.maximumJSONBodySize = maximumJSONBodySize
            self.ignoredUploadSize = maximumUploadSize
            self.maximumFileSize = maximumFileSize
            self.requestHandler = requestHandler
            self.syncSpecs = syncSpecs
            self.syncJWTSecret = syncJWTSecret
            self.syncMinimumAppVersion = syncMinimumAppVersion
            self.syncClockSkewTolerance = syncClockSkewTolerance
            self.syncProtocol = syncProtocol
            self.syncPushWriteErrors = syncPushWriteErrors
            self.responseLatency = responseLatency
        }
    }
}

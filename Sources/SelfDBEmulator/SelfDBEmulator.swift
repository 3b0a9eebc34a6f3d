import EmulatorSupport
import Foundation
import GRDB
import Hummingbird
import HummingbirdCore
import HummingbirdWebSocket
import Logging
import NIOCore
import SelfDBSpec
import SynchroEmulator

/// A local server that speaks SelfDB v0.0.5's wire protocol on an embedded SQLite
/// database, bound to 127.0.0.1.
///
/// ```swift
/// let emulator = try await SelfDBEmulator.start(.init(apiKey: "key", admin: .init(email: "a@b.c", password: "Password1")))
/// defer { Task { await emulator.stop() } }
/// // talk to emulator.baseURL
/// ```
///
/// Besides the wire API it offers in-process test hooks: a request log, injected faults
/// and an adjustable access-token lifetime. None of them is reachable over HTTP.
public final class SelfDBEmulator: Sendable {
    /// The configuration the emulator was started with (with the bound port filled in).
    public let configuration: Configuration
    /// The port actually bound on 127.0.0.1.
    public let port: Int
    /// The data directory in use (a temporary one if none was configured).
    public let dataDirectory: URL

    let services: EmulatorServices
    private let serverTask: Task<Void, Never>
    private let ownsDataDirectory: Bool
    private let stopped = Locked(false)

    /// `http://127.0.0.1:<port>`
    public var baseURL: URL {
        URL(string: "http://127.0.0.1:\(port)") ?? URL(fileURLWithPath: "/")
    }

    /// `ws://127.0.0.1:<port>/realtime/socket` (append the query yourself).
    public var realtimeURL: URL {
        URL(string: "ws://127.0.0.1:\(port)/realtime/socket") ?? URL(fileURLWithPath: "/")
    }

    private init(
        configuration: Configuration,
        port: Int,
        dataDirectory: URL,
        ownsDataDirectory: Bool,
        services: EmulatorServices,
        serverTask: Task<Void, Never>
    ) {
        self.configuration = configuration
        self.port = port
        self.dataDirectory = dataDirectory
        self.ownsDataDirectory = ownsDataDirectory
        self.services = services
        self.serverTask = serverTask
    }

    /// Errors starting the emulator.
    public enum StartError: Error, CustomStringConvertible {
        /// The server could not bind or failed before it was listening.
        case serverFailed(String)
        /// A sync spec (``Configuration/syncSpecs``) has errors; every diagnostic of every
        /// spec, warnings included, in the compiler's `file:line:col: error: message` form.
        case syncSpecInvalid([Diagnostic])
        /// The sync options do not fit together (no synced table, a table two specs
        /// declare, a minimum app version that is not a version...).
        case syncConfigurationInvalid(String)

        public var description: String {
            switch self {
            case .serverFailed(let reason): "SelfDB emulator failed to start: \(reason)"
            case .syncSpecInvalid(let diagnostics):
                "SelfDB emulator failed to start: the sync specs have errors:\n"
                    + diagnostics.map(\.description).joined(separator: "\n")
            case .syncConfigurationInvalid(let reason): "SelfDB emulator failed to start: \(reason)"
            }
        }
    }

    /// Opens (or creates) the data directory, makes sure the admin account exists and
    /// starts serving. Returns once the port is bound.
    public static func start(_ configuration: Configuration) async throws -> SelfDBEmulator {
        let syncConfiguration = SyncServerConfiguration(configuration)
        let syncSchema: SyncSchema?
        do {
            syncSchema = try SynchroServer.schema(for: syncConfiguration)
        } catch {
            throw StartError(error)
        }
        let ownsDirectory = configuration.dataDirectory == nil
        let directory =
            configuration.dataDirectory
            ?? FileManager.default.temporaryDirectory.appendingPathComponent(
                "selfdb-emulator-\(UUIDText.random())",
                isDirectory: true
            )
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)

        let database = try EmulatorDatabase(path: directory.appendingPathComponent("selfdb.sqlite").path)
        let jwt = JSONWebToken(secret: try database.persistentSecret(named: "jwt_secret"))
        let synchro = try syncSchema.map {
            try SynchroServer(schema: $0, configuration: syncConfiguration, directory: directory) { token, now in
                jwt.verify(token, now: now)?.subject
            }
        }
        let services = EmulatorServices(
            configuration: configuration,
            database: database,
            jwt: jwt,
            controls: TestControls(accessTokenLifetime: configuration.accessTokenLifetime),
            realtime: RealtimeHub(),
            blobs: try BlobStore(root: directory.appendingPathComponent("storage", isDirectory: true)),
            backups: BackupDirectory(root: directory.appendingPathComponent("backups", isDirectory: true)),
            synchro: synchro
        )
        if let admin = configuration.admin {
            try await UserService(services: services).ensureAdmin(admin)
        }

        let routes = RouteBuilder.routes()
        let responder = EmulatorResponder(services: services, routes: routes)
        let bound = AsyncThrowingStream<Int, any Error>.makeStream()
        var logger = Logger(label: "selfdb-emulator")
        // Cancellation on stop() makes HummingbirdCore log at error level; that is expected.
        logger.logLevel = .critical

        let app = Application(
            responder: responder,
            server: HTTPServerBuilder { responder in
                MalformedRequestGuard(
                    inner: HTTP1WebSocketUpgradeChannel(
                        responder: responder,
                        configuration: .init(ws: .init(maxFrameSize: 1 << 20, autoPing: .disabled, closeTimeout: .seconds(2)))
                    ) { request, _, _ in
                        RealtimeUpgrade(services: services).shouldUpgrade(request)
                    }
                )
            },
            configuration: .init(address: .hostname("127.0.0.1", port: configuration.port), serverName: nil),
            onServerRunning: { channel in
                bound.continuation.yield(channel.localAddress?.port ?? configuration.port)
                bound.continuation.finish()
            },
            logger: logger
        )
        let serverTask = Task {
            do {
                try await app.run()
                bound.continuation.finish(throwing: StartError.serverFailed("server stopped before listening"))
            } catch {
                bound.continuation.finish(throwing: StartError.serverFailed(String(describing: error)))
            }
        }
        let port: Int
        do {
            var iterator = bound.stream.makeAsyncIterator()
            guard let first = try await iterator.next() else {
                throw StartError.serverFailed("server stopped before listening")
            }
            port = first
        } catch {
            serverTask.cancel()
            await serverTask.value
            try? database.pool.close()
            synchro?.close()
            if ownsDirectory {
                try? FileManager.default.removeItem(at: directory)
            }
            throw error
        }
        var effective = configuration
        effective.port = port
        return SelfDBEmulator(
            configuration: effective,
            port: port,
            dataDirectory: directory,
            ownsDataDirectory: ownsDirectory,
            services: services,
            serverTask: serverTask
        )
    }

    /// Closes every realtime socket, stops listening and closes the database. The same
    /// port and data directory can be used by a new emulator right after this returns.
    /// A temporary data directory is deleted.
    public func stop() async {
        let alreadyStopped = stopped.withLock { value in
            defer { value = true }
            return value
        }
        guard !alreadyStopped else { return }
        services.realtime.closeAll()
        serverTask.cancel()
        await serverTask.value
        try? services.database.pool.close()
        services.synchro?.close()
        if ownsDataDirectory {
            try? FileManager.default.removeItem(at: dataDirectory)
        }
    }

    // MARK: - Test hooks (in-process only)

    /// Every HTTP request answered since start (or the last ``resetRecordedRequests()``),
    /// in the order they completed.
    public func recordedRequests() -> [RecordedRequest] {
        services.controls.recorded
    }

    /// How many requests with this method and path were answered, e.g.
    /// `requestCount(method: "POST", path: "/users/token/refresh")`. The path is
    /// compared without the query string and must be spelled exactly as sent.
    public func requestCount(method: String, path: String) -> Int {
        let method = method.uppercased()
        return services.controls.recorded.count { $0.method == method && $0.path == path }
    }

    /// The most requests with this method and path that were being answered at once since
    /// start (or the last ``resetRecordedRequests()``): received, and their answer not yet
    /// sent (``Configuration/responseLatency`` included). A client that waits for each answer
    /// before its next request makes this 1, e.g.
    /// `mostRequestsAtOnce(method: "POST", path: "/sync/push")`.
    public func mostRequestsAtOnce(method: String, path: String) -> Int {
        services.controls.mostAtOnce(method: method.uppercased(), path: path)
    }

    /// Holds the answers to requests with this method and path (handled, not yet sent) until
    /// `count` of them are being answered at once, or `timeout` has passed; then lets them all
    /// go, once. A test of a client that sends its next request before the answer to the one
    /// before arrives, e.g. `holdAnswers(method: "POST", path: "/sync/push", untilAtOnce: 2)`:
    /// such a client's first answer waits for its second request, another's for the timeout.
    public func holdAnswers(method: String, path: String, untilAtOnce count: Int, timeout: Duration = .seconds(10)) {
        services.controls.hold(method: method.uppercased(), path: path, untilAtOnce: count, timeout: timeout)
    }

    /// Forgets the recorded requests, and the most requests answered at once.
    public func resetRecordedRequests() {
        services.controls.resetLog()
    }

    /// Answers the next `count` requests matching `method` and `path` (exact, without
    /// query) with `fault` instead of handling them, e.g.
    /// `injectFault(.serviceUnavailable(retryAfter: 1), method: "GET", path: "/users/me", count: 2)`.
    /// Faults are answered before the API key is checked and are recorded in the log.
    public func injectFault(_ fault: InjectedFault, method: String, path: String, count: Int = 1) {
        services.controls.inject(fault, method: method, path: path, count: count)
    }

    /// Drops every pending injected fault.
    public func clearFaults() {
        services.controls.clearFaults()
    }

    /// The pause between validating a refresh token and rotating it, zero by default. SelfDB
    /// does both a database round trip apart, and two refreshes with one token that meet in that
    /// gap revoke every session of the user; a test widens it (say to 100 ms) so that a client
    /// that lets two refreshes race is caught as it would be in production.
    public var refreshRotationDelay: Duration {
        get { services.controls.refreshRotationDelay }
        set { services.controls.refreshRotationDelay = newValue }
    }

    /// Lifetime of access tokens issued from now on (`expires_in` and the JWT `exp`,
    /// rounded up to whole seconds). Set ~1 s to make tokens expire during a test.
    public var accessTokenLifetime: TimeInterval {
        get { services.controls.accessTokenLifetime }
        set { services.controls.accessTokenLifetime = newValue }
    }

    /// Number of realtime sockets currently open.
    public var realtimeConnectionCount: Int {
        services.realtime.connectionCount
    }

    /// Whether realtime heartbeats are answered (true unless a test turns it off to see a
    /// client detect a dead connection).
    public var answersRealtimeHeartbeats: Bool {
        get { services.realtime.answersHeartbeats.current }
        set { services.realtime.answersHeartbeats.withLock { $0 = newValue } }
    }

    /// Whether `/realtime/socket` accepts WebSocket upgrades (true unless a test turns it off).
    /// Off, the emulator stands for a SelfDB whose realtime service is not reachable: an
    /// upgrade is refused and answered over HTTP (404) while the REST API carries on, so a
    /// client's `connect()` fails. Sockets already open stay open.
    public var acceptsRealtimeConnections: Bool {
        get { services.realtime.acceptsConnections.current }
        set { services.realtime.acceptsConnections.withLock { $0 = newValue } }
    }

    /// Whether the realtime service behind `/realtime/socket` is up (true unless a test turns it
    /// off). Off, the emulator stands for a SelfDB whose Phoenix service is down, as SelfDB
    /// v0.0.5's proxy (`endpoints/realtime.py`) behaves: a WebSocket upgrade still succeeds,
    /// then the socket is closed at once (1011, "Proxy error: …"); a socket that was open when
    /// the service went away stays open and silent (no reply, no event, ever: the proxy stops
    /// forwarding and never closes it), which only a client's heartbeat can tell.
    /// ``dropRealtimeSockets()`` closes those as a network cut would.
    public var realtimeServiceIsUp: Bool {
        get { services.realtime.serviceIsUp.current }
        set {
            services.realtime.serviceIsUp.withLock { $0 = newValue }
            if !newValue { services.realtime.silenceAll() }
        }
    }

    /// Closes every open realtime socket (1001, going away), as a lost network does; the
    /// server carries on and accepts new sockets.
    public func dropRealtimeSockets() {
        services.realtime.closeAll()
    }

    /// How late the `phx_close` that ends a channel (after a leave, or a second join of a
    /// joined topic) follows its reply; zero unless a test plays SelfDB's real service, where
    /// the close comes from the ended channel's process and can arrive after the next join's
    /// reply.
    public var realtimeChannelCloseDelay: Duration {
        get { services.realtime.channelCloseDelay.current }
        set { services.realtime.channelCloseDelay.withLock { $0 = newValue } }
    }

    /// WebSocket upgrades of `/realtime/socket` accepted since the start, including those the
    /// emulator closed at once because ``realtimeServiceIsUp`` was off: a client's connection
    /// attempts.
    public var realtimeUpgradeCount: Int {
        services.realtime.upgradesAccepted.current
    }

    /// `phx_join` frames of `table:` topics received since the start, on every socket.
    public var realtimeJoinCount: Int {
        services.realtime.joinsReceived.current
    }

    /// How many open realtime sockets have joined `topic` (e.g. `table:todos`).
    public func realtimeSubscriberCount(topic: String) -> Int {
        services.realtime.joinedCount(topic: topic)
    }

    /// Ends `topic`'s channel on every socket that joined it, as SelfDB's Phoenix service does
    /// when the channel's process crashes (`crashed`: `phx_error`) or the server closes it
    /// (`phx_close`); the frame carries the join's refs (none on V1). A client must join again.
    public func endRealtimeChannels(topic: String, crashed: Bool) {
        services.realtime.endChannels(topic: topic, event: crashed ? "phx_error" : "phx_close")
    }

    /// Sends `text` unchanged as a text frame on every open realtime socket, e.g. a malformed
    /// frame to see how a client copes.
    public func sendRawRealtimeFrame(_ text: String) {
        services.realtime.sendRaw(text)
    }
}

import Foundation
import Logging
import SelfDBRuntime

/// The Phoenix Channels client behind `selfdb.realtime`.
///
/// ```swift
/// try await selfdb.realtime.connect()
/// let channel = selfdb.realtime.channel("table:orders")
///     .on(.insert) { payload in print(payload.new ?? [:]) }
/// try await channel.subscribe()
/// for await change in try await selfdb.realtime.changes(Order.self) { ... }
/// try await selfdb.realtime.disconnect()
/// ```
///
/// Once connected, the client keeps the socket alive: a heartbeat every
/// ``RealtimeConfiguration/heartbeatInterval``, and when the socket drops or a heartbeat goes
/// unanswered, reconnection with backoff and jitter, after which every subscribed channel is
/// joined again with its handlers. Each connect reads the API key and the current access token
/// afresh, so a reconnect after a token refresh presents the new token.
public actor RealtimeClient {
    /// The API key and, when signed in, the access token to present.
    public typealias Credentials = @Sendable () async throws -> (apiKey: String?, accessToken: String?)

    /// How the client talks to the server.
    public nonisolated let configuration: RealtimeConfiguration
    private nonisolated let baseURL: URL
    private let credentials: Credentials
    nonisolated let channels = Locked<[String: RealtimeChannel]>([:])
    private nonisolated let states = Broadcast<ConnectionState>(initial: .disconnected(.notStarted))
    private nonisolated let problemFeed = Broadcast<RealtimeError>()

    var socket: (any WebSocketConnection)?
    /// Bumped for every socket, so work left over from an old socket recognises itself.
    var generation = 0
    /// Between `connect()` and `disconnect()`: the client reconnects whenever the socket drops.
    var wantsConnection = false
    private var opening: Task<Void, any Error>?
    private var heartbeat: Task<Void, Never>?
    var reconnecting: Task<Void, Never>?
    private var pendingHeartbeat: String?
    private var replies: [String: ReplyWaiter] = [:]
    private var lastRef = 0
    /// What the server holds of each topic on the current socket.
    var memberships: [String: ChannelMembership] = [:]
    /// Connection attempts since a socket last proved healthy (a join or a heartbeat answered):
    /// the backoff's step, which a socket that opens and dies at once does not reset.
    var failedAttempts = 0
    /// Whether the current socket proved healthy.
    var isProvenHealthy = false
    /// A reconnect trigger came while a socket was open but unproven: if it is lost, the
    /// next attempt goes without waiting.
    var retryPromptly = false
    /// Follow the reconnect triggers while connected.
    var triggerWatchers: [Task<Void, Never>] = []

    /// The current state (also delivered by ``stateUpdates()``).
    public private(set) var state: ConnectionState = .disconnected(.notStarted)

    /// A client for the server at `baseURL` (its `http`/`https` URL; the socket URL is derived
    /// from it), asking `credentials` for the API key and token at each connect.
    public init(baseURL: URL, configuration: RealtimeConfiguration = RealtimeConfiguration(), credentials: @escaping Credentials) {
        self.baseURL = baseURL
        self.configuration = configuration
        self.credentials = credentials
    }

    // MARK: - Connection

    /// Opens the socket and returns once it is open. Calling it while connected does nothing.
    ///
    /// - Throws: ``RealtimeError/connectionFailed(_:)`` when the socket cannot be opened (the
    ///   client then does not retry; call `connect()` again).
    public func connect() async throws {
        wantsConnection = true
        reconnecting?.cancel()
        reconnecting = nil
        do {
            try await open()
        } catch {
            if socket == nil { wantsConnection = false }
            throw error
        }
        watchReconnectTriggers()
    }

    /// Closes the socket and stops reconnecting. Subscribed channels keep their handlers and
    /// are joined again by the next `connect()`.
    ///
    /// Declared `throws` for the design note's `try await`; it does not fail today.
    public func disconnect() async throws {
        wantsConnection = false
        stopWatchingReconnectTriggers()
        let wasReconnecting = reconnecting != nil
        reconnecting?.cancel()
        reconnecting = nil
        // A socket still opening: the connector stops at once instead of waiting out its
        // timeout, and the pending connect() throws `.disconnected`.
        opening?.cancel()
        guard let socket else {
            // A lost socket was already logged; what changes now is that the client stops
            // trying to get it back, which a trace should show as well.
            if wasReconnecting { configuration.logger.info("realtime disconnected: requested (reconnecting stopped)") }
            publish(.disconnected(.requested))
            return
        }
        drop(reason: .requested)
        await socket.close()
    }

    /// Every state change, starting with the current state. Ends when the consumer stops.
    public nonisolated func stateUpdates() -> AsyncStream<ConnectionState> {
        states.stream()
    }

    /// Problems on the socket that no call can throw: malformed frames, rows that do not
    /// decode for a typed stream, channel errors, failed re-joins.
    public nonisolated func problems() -> AsyncStream<RealtimeError> {
        problemFeed.stream()
    }

    /// The channel for `topic` (`table:<name>` for a SelfDB table). The same topic always
    /// gives the same channel.
    public nonisolated func channel(_ topic: String) -> RealtimeChannel {
        channels.withLock { all in
            if let existing = all[topic] { return existing }
            let channel = RealtimeChannel(topic: topic, client: self)
            all[topic] = channel
            return channel
        }
    }

    /// The socket URL: `ws[s]://host:port/realtime/socket?X-API-Key=…&token=…` (V1) or
    /// `…/realtime/socket/websocket?vsn=2.0.0&…` (V2).
    func socketURL() async throws -> URL {
        let (apiKey, token) = try await credentials()
        let endpoint = configuration.serializer.endpoint
        guard var components = URLComponents(url: baseURL.appendingPathComponent(endpoint.path), resolvingAgainstBaseURL: false) else {
            throw RealtimeError.connectionFailed("invalid base URL \(baseURL)")
        }
        switch components.scheme?.lowercased() {
        case "https", "wss": components.scheme = "wss"
        case "http", "ws": components.scheme = "ws"
        default: throw RealtimeError.connectionFailed("base URL \(baseURL) is not http(s)")
        }
        var query: [URLQueryItem] = []
        if let vsn = endpoint.vsn { query.append(URLQueryItem(name: "vsn", value: vsn)) }
        if let apiKey { query.append(URLQueryItem(name: "X-API-Key", value: apiKey)) }
        if let token { query.append(URLQueryItem(name: "token", value: token)) }
        components.queryItems = query.isEmpty ? nil : query
        guard let url = components.url else { throw RealtimeError.connectionFailed("invalid base URL \(baseURL)") }
        return url
    }

    /// Opens a socket unless one is open or opening (concurrent callers share one attempt).
    func open() async throws {
        if socket != nil { return }
        if let opening {
            return try await opening.value
        }
        let attempt = Task { try await establish() }
        opening = attempt
        defer { opening = nil }
        try await attempt.value
    }

    private func establish() async throws {
        publish(.connecting)
        let connection: any WebSocketConnection
        do {
            connection = try await configuration.connector.connect(to: try await socketURL())
        } catch _ where !wantsConnection {
            // disconnect() was called while the socket was opening, and said so already.
            throw RealtimeError.disconnected
        } catch let error as RealtimeError where error.isPermanent {
            configuration.logger.error("realtime connect failed: \(error)")
            publish(.disconnected(.connectFailed(error.description)))
            throw error
        } catch {
            let reason = (error as? RealtimeError).map { if case .connectionFailed(let text) = $0 { text } else { $0.description } } ?? String(describing: error)
            // The error's type only: a transport's text can quote the socket URL, which
            // carries the API key and the token.
            configuration.logger.error("realtime connect failed (\(type(of: error)))")
            publish(.disconnected(.connectFailed(reason)))
            throw RealtimeError.connectionFailed(reason)
        }
        guard wantsConnection else {
            // disconnect() was called while the socket was opening.
            await connection.close()
            throw RealtimeError.disconnected
        }
        generation += 1
        let current = generation
        socket = connection
        pendingHeartbeat = nil
        isProvenHealthy = false
        memberships = [:]
        configuration.logger.info("realtime connected (socket \(current))")
        publish(.connected)
        Task { await self.read(connection, generation: current) }
        heartbeat = Task { await self.beat(generation: current) }
        // A heartbeat at once: its answer proves the socket (a proxy that cannot reach the
        // service accepts the upgrade and closes it, and such a socket must not reset the
        // backoff); unanswered within the reply timeout, the socket is dropped as dead.
        Task { await self.sendHeartbeat(generation: current) }
        for channel in channels.current.values where channel.isWanted {
            Task { await self.rejoin(channel) }
        }
    }

    /// Forgets the socket: pending replies fail, channels are no longer joined.
    private func drop(reason: DisconnectReason) {
        configuration.logger.info("realtime disconnected: \(reason.logSummary)")
        socket = nil
        generation += 1
        heartbeat?.cancel()
        heartbeat = nil
        pendingHeartbeat = nil
        for waiter in replies.values { waiter.fail(RealtimeError.disconnected) }
        replies.removeAll()
        memberships = [:]
        for channel in channels.current.values { channel.setJoined(false) }
        publish(.disconnected(reason))
    }

    /// The socket `generation` ended (or was found dead): drop it and start reconnecting.
    func connectionLost(generation lost: Int, reason: DisconnectReason) {
        guard lost == generation, let connection = socket else { return }
        drop(reason: reason)
        Task { await connection.close() }
        guard wantsConnection, reconnecting == nil else { return }
        reconnecting = Task { await self.reconnect() }
    }

    private func publish(_ newState: ConnectionState) {
        state = newState
        states.send(newState, remember: true)
    }

    func report(_ problem: RealtimeError) {
        problemFeed.send(problem)
    }

    // MARK: - Frames

    private func read(_ connection: any WebSocketConnection, generation current: Int) async {
        var reason = DisconnectReason.closedByServer
        do {
            for try await message in connection.messages {
                guard current == generation else { return }
                receive(message)
            }
        } catch {
            reason = .connectionLost(String(describing: error))
        }
        connectionLost(generation: current, reason: reason)
    }

    private func receive(_ message: WebSocketMessage) {
        guard case .text(let text) = message else {
            report(.malformedFrame("a binary frame; Phoenix JSON frames are text"))
            return
        }
        let frame: PhoenixMessage
        do {
            frame = try configuration.serializer.decode(text)
        } catch {
            report(error)
            return
        }
        switch frame.event {
        case "phx_reply":
            if frame.topic == "phoenix", frame.ref != nil, frame.ref == pendingHeartbeat {
                pendingHeartbeat = nil
                provedHealthy()
            } else if let ref = frame.ref, let waiter = replies.removeValue(forKey: ref) {
                waiter.succeed(frame.payload)
            }
        case "phx_error", "phx_close":
            channelEnded(topic: frame.topic, ref: frame.joinRef ?? frame.ref, isClose: frame.event == "phx_close")
        default:
            guard let channel = channels.current[frame.topic] else { return }
            channelDelivered(topic: frame.topic)
            do {
                channel.deliver(try RealtimePayload(frameEvent: frame.event, topic: frame.topic, payload: frame.payload))
            } catch {
                report(error)
            }
        }
    }

    private func beat(generation current: Int) async {
        while !Task.isCancelled {
            do {
                try await Task.sleep(for: configuration.heartbeatInterval)
            } catch {
                return
            }
            guard current == generation, socket != nil else { return }
            if pendingHeartbeat != nil {
                configuration.logger.warning("realtime heartbeat unanswered; dropping the socket")
                connectionLost(generation: current, reason: .heartbeatTimeout)
                return
            }
            await sendHeartbeat(generation: current)
        }
    }

    /// Sends a heartbeat on socket `current`, whose answer is awaited by the next beat.
    private func sendHeartbeat(generation current: Int) async {
        guard current == generation, let connection = socket, pendingHeartbeat == nil else { return }
        let ref = nextRef()
        pendingHeartbeat = ref
        configuration.logger.trace("realtime heartbeat \(ref)")
        do {
            try await connection.send(configuration.serializer.encode(PhoenixMessage(ref: ref, topic: "phoenix", event: "heartbeat")))
        } catch {
            connectionLost(generation: current, reason: .connectionLost(String(describing: error)))
            return
        }
        // Unanswered within a reply's time, the socket is dead, without waiting for the next
        // beat: SelfDB's proxy keeps a client's socket open when Phoenix behind it goes away,
        // and nothing but a heartbeat can tell.
        Task {
            try? await Task.sleep(for: configuration.replyTimeout)
            guard current == generation, pendingHeartbeat == ref else { return }
            configuration.logger.warning("realtime heartbeat unanswered; dropping the socket")
            connectionLost(generation: current, reason: .heartbeatTimeout)
        }
    }

    func nextRef() -> String {
        lastRef += 1
        return String(lastRef)
    }

    // MARK: - Channels

    /// Sends `event` on `topic` (with `ref`, a new one by default) and waits for its
    /// `phx_reply`; returns the reply's `response`.
    func request(_ event: String, topic: String, ref: String? = nil, joinRef: String? = nil) async throws -> (status: String, response: JSONValue) {
        guard let connection = socket else { throw RealtimeError.notConnected }
        let ref = ref ?? nextRef()
        let waiter = ReplyWaiter()
        replies[ref] = waiter
        let timeout = configuration.replyTimeout
        let timer = Task {
            try await Task.sleep(for: timeout)
            waiter.fail(RealtimeError.replyTimeout(topic: topic, event: event))
        }
        defer {
            timer.cancel()
            replies[ref] = nil
        }
        let message = PhoenixMessage(joinRef: joinRef ?? (event == "phx_join" ? ref : nil), ref: ref, topic: topic, event: event)
        do {
            try await connection.send(configuration.serializer.encode(message))
        } catch {
            throw RealtimeError.disconnected
        }
        let payload = try await waiter.value()
        let status = payload["status"]?.stringValue ?? "error"
        return (status, payload["response"] ?? .object([:]))
    }
}

/// A reply awaited by `request`: resolved once by the reader, a timeout or a disconnect,
/// whichever comes first; may be resolved before anyone waits.
final class ReplyWaiter: Sendable {
    private enum State {
        case waiting(CheckedContinuation<JSONValue, any Error>?)
        case done(Result<JSONValue, any Error>)
    }

    private let state = Locked(State.waiting(nil))

    func succeed(_ value: JSONValue) { finish(.success(value)) }
    func fail(_ error: any Error) { finish(.failure(error)) }

    func value() async throws -> JSONValue {
        try await withCheckedThrowingContinuation { continuation in
            let ready: Result<JSONValue, any Error>? = state.withLock { current in
                if case .done(let result) = current { return result }
                current = .waiting(continuation)
                return nil
            }
            if let ready { continuation.resume(with: ready) }
        }
    }

    private func finish(_ result: Result<JSONValue, any Error>) {
        let continuation: CheckedContinuation<JSONValue, any Error>? = state.withLock { current in
            guard case .waiting(let waiting) = current else { return nil }
            current = .done(result)
            return waiting
        }
        continuation?.resume(with: result)
    }
}

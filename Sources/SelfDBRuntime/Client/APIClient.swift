import Foundation
import Logging

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Performs the requests generated endpoint code describes: builds the URL and headers,
/// attaches credentials, sends through the transport, maps error statuses to `SelfDBError`
/// and decodes the response.
public final class APIClient: Sendable {
    /// Connection settings.
    public struct Configuration: Sendable {
        /// Server root, e.g. `http://localhost:8000`.
        public var baseURL: URL
        /// Sent as `X-API-Key` on every request when set.
        public var apiKey: String?
        /// Status → error kind, from the spec's `errors:` section.
        public var errorKinds: [Int: APIErrorKind]
        /// Headers added to every request (e.g. an app version).
        public var additionalHeaders: [String: String]
        /// When to send a failed idempotent request again.
        public var retryPolicy: RetryPolicy
        /// Refresh this long before the access token's known expiry, sparing a 401 round trip.
        public var refreshLeeway: TimeInterval
        /// Where the client reports what it does: each request at debug (method, path, status,
        /// duration), retries and token refreshes at info, failures at error. Never a token,
        /// password, API key, body or query string. Silent by default.
        public var logger: Logger

        /// Creates a configuration.
        public init(
            baseURL: URL,
            apiKey: String? = nil,
            errorKinds: [Int: APIErrorKind] = [:],
            additionalHeaders: [String: String] = [:],
            retryPolicy: RetryPolicy = RetryPolicy(),
            refreshLeeway: TimeInterval = 10,
            logger: Logger = .selfdbDisabled
        ) {
            self.baseURL = baseURL
            self.apiKey = apiKey
            self.errorKinds = errorKinds
            self.additionalHeaders = additionalHeaders
            self.retryPolicy = retryPolicy
            self.refreshLeeway = refreshLeeway
            self.logger = logger
        }
    }

    /// Exchanges a refresh token for a new session, using the client (the API's own refresh
    /// endpoint). Without one, an expired session simply fails with `authenticationError`.
    public typealias Refresher = @Sendable (_ client: APIClient, _ refreshToken: String) async throws -> StoredSession

    /// Supplies the bearer token of every request that needs one, in place of a stored
    /// session: for servers whose tokens the app gets elsewhere (Synchro's `authProvider`).
    public typealias AccessTokenProvider = @Sendable () async throws -> String

    /// The settings this client was made with.
    public let configuration: Configuration
    /// Where the signed-in session lives.
    public let tokenStore: any TokenStore
    let transport: any HTTPTransport
    private let refresher: Refresher?
    private let accessTokenProvider: AccessTokenProvider?
    private let sessions: SessionCoordinator
    private let events: AuthChangeBroadcaster
    private let decoder = JSONCoding.makeDecoder()
    private let encoder = JSONCoding.makeEncoder()

    /// Creates a client.
    public init(configuration: Configuration, transport: any HTTPTransport = platformHTTPTransport(), tokenStore: any TokenStore = InMemoryTokenStore(), refresher: Refresher? = nil) {
        self.configuration = configuration
        self.transport = transport
        self.tokenStore = tokenStore
        self.refresher = refresher
        self.accessTokenProvider = nil
        self.events = AuthChangeBroadcaster(store: tokenStore)
        self.sessions = SessionCoordinator(store: tokenStore, events: events, retryPolicy: configuration.retryPolicy)
    }

    /// Creates a client whose bearer tokens come from `accessTokenProvider`, asked before
    /// every request that needs one and once more after a 401 (the token may have expired
    /// in between). The client keeps no session of its own.
    public init(configuration: Configuration, transport: any HTTPTransport = platformHTTPTransport(), accessTokenProvider: @escaping AccessTokenProvider) {
        self.configuration = configuration
        self.transport = transport
        self.tokenStore = InMemoryTokenStore()
        self.refresher = nil
        self.accessTokenProvider = accessTokenProvider
        self.events = AuthChangeBroadcaster(store: tokenStore)
        self.sessions = SessionCoordinator(store: tokenStore, events: events, retryPolicy: configuration.retryPolicy)
    }

    /// Names resolved to ids by hand-written helpers (e.g. table names), kept per client.
    public let resolvedIDs = IDCache()

    /// The signed-in session, if any.
    public var session: StoredSession? {
        get async { await tokenStore.load() }
    }

    /// The signed-in state as it changes, for as long as the stream is iterated: the stored
    /// session first (``AuthChange/initialSession(_:)``), then each sign-in, refresh, change of
    /// the user's record and sign-out (with its reason) once, in order, including those another
    /// process makes to a store they share where the store can tell
    /// (``TokenStore/externalChanges()``: ``FileTokenStore`` can).
    public var authChanges: AsyncStream<AuthChange> {
        events.stream()
    }

    // MARK: - Calls used by generated code

    /// Sends `request` and decodes the response body as `Response`.
    public func send<Response: Decodable & Sendable>(_ request: APIRequest, decoding _: Response.Type) async throws -> Response {
        let data = try await perform(request)
        let value = try decode(Response.self, from: data, answering: request)
        if let tokens = value as? any SessionTokens, request.session == .signIn || request.session == .refresh, !SessionCoordinator.isRefreshing {
            let session = StoredSession(tokens)
            await tokenStore.save(session)
            events.post(request.session == .signIn ? .signedIn(session) : .tokenRefreshed(session))
        } else if let user = value as? any SessionUser {
            await noticeUser(user)
        }
        return value
    }

    /// Remembers the signed-in user's record when `user` is them (told as an update when it
    /// changed since the last response that showed them).
    private func noticeUser(_ user: any SessionUser) async {
        guard let session = await tokenStore.load(), AccessTokenClaims.subject(of: session.accessToken) == user.sessionUserID.lowercased(),
            let json = try? encoder.encode(user)
        else { return }
        events.userSeen(SessionUserRecord(id: user.sessionUserID, json: json))
    }

    /// Decodes `data`, the body of the answer to `request`, as ``send(_:decoding:)`` does: a
    /// body that is not a `Response` is ``SelfDBError/invalidResponse(_:)`` naming the request
    /// and where the body went wrong. For callers that take the bytes first
    /// (``sendForBytes(_:)``) and decode them later.
    public func decode<Response: Decodable>(_: Response.Type, from data: Data, answering request: APIRequest) throws -> Response {
        do {
            if Response.self is any JSONTreeDecodable.Type {
                return try JSONTreeDecoder.decode(Response.self, from: data)
            }
            return try decoder.decode(Response.self, from: data)
        } catch {
            throw Self.decodingFailure(Response.self, answering: request, error)
        }
    }

    /// Decodes a `Response` from `value`, a parsed answer to `request` (or a part of one),
    /// with ``decode(_:from:answering:)``'s errors.
    public func decode<Response: Decodable>(_: Response.Type, fromParsed value: JSONValue, answering request: APIRequest) throws -> Response {
        do {
            return try JSONTreeDecoder(value: value).decode(Response.self)
        } catch {
            throw Self.decodingFailure(Response.self, answering: request, error)
        }
    }

    private static func decodingFailure<Response>(_: Response.Type, answering request: APIRequest, _ error: any Error) -> SelfDBError {
        .invalidResponse("could not decode \(Response.self) from \(request.method.rawValue) \(request.path): \(describe(error))")
    }

    /// Sends `request` and ignores the response body.
    public func send(_ request: APIRequest) async throws {
        _ = try await perform(request)
    }

    /// Sends `request` and returns the raw response body.
    public func sendForBytes(_ request: APIRequest) async throws -> Data {
        try await perform(request)
    }

    /// Encodes `value` as a JSON body.
    public func json(_ value: some Encodable) throws -> RequestBody {
        do {
            if value is any JSONTreeEncodable {
                return .json(try JSONTreeEncoder.encode(value).serialized())
            }
            return .json(try encoder.encode(value))
        } catch {
            throw SelfDBError.invalidArgument("could not encode the request body: \(error)")
        }
    }

    // MARK: - Sending

    /// Sends `request` (through `exchange` when given, e.g. a transfer from or to a file,
    /// otherwise the transport's `send`) with credentials, refreshes, retries, logging and
    /// error mapping; returns the body of a 2xx answer.
    func perform(_ request: APIRequest, exchange: (@Sendable (URLRequest) async throws -> (Data, HTTPURLResponse))? = nil) async throws -> Data {
        var attempt = 0
        var refreshed = false
        let logger = configuration.logger
        let name = "\(request.method.rawValue) \(request.path)"
        while true {
            attempt += 1
            let (token, usedSession) = try await credentials(for: request)
            let urlRequest = try makeURLRequest(request, accessToken: token)
            let data: Data
            let response: HTTPURLResponse
            let started = ContinuousClock.now
            do {
                if let exchange {
                    (data, response) = try await exchange(urlRequest)
                } else {
                    (data, response) = try await transport.send(urlRequest)
                }
            } catch {
                if Self.isCancellation(error) {
                    logger.debug("\(name) cancelled")
                    throw CancellationError()
                }
                if let error = error as? TransferFileError {
                    // A local file, not the network: sending again would fail the same way.
                    logger.error("\(name) failed: a file could not be used (\(error.reason))", metadata: RequestLog.metadata(request))
                    throw SelfDBError.fileError(error.description)
                }
                // Sent again only when that cannot apply it twice: it never reached the server,
                // or it is idempotent. Otherwise the caller learns that the outcome is unknown
                // and settles it (the cache and Synchro look before they send again).
                let delivery = RequestDelivery(of: error)
                if delivery == .notSent || request.isIdempotent, attempt < configuration.retryPolicy.maxAttempts {
                    let delay = configuration.retryPolicy.delay(afterAttempt: attempt, retryAfter: nil)
                    logger.info("retrying \(name) in \(RequestLog.seconds(delay)) after a connection failure (attempt \(attempt + 1) of \(configuration.retryPolicy.maxAttempts))")
                    try await Task.sleep(for: .seconds(delay))
                    continue
                }
                switch delivery {
                case .notSent:
                    logger.error("\(name) failed: the server could not be reached (\(RequestLog.describe(error)))", metadata: RequestLog.metadata(request))
                case .unknown:
                    logger.error(
                        "\(name) failed: the connection failed after the request was sent; the server may have applied it (\(RequestLog.describe(error)))",
                        metadata: RequestLog.metadata(request)
                    )
                }
                throw SelfDBError.connectionError(error)
            }
            let status = response.statusCode
            logger.debug("\(name) → \(status) in \(RequestLog.milliseconds(since: started))", metadata: RequestLog.metadata(request, status: status))
            // An expired token: refresh once (single-flight) and send again. A request that
            // manages the session itself is never retried this way.
            if status == 401, token != nil, let usedSession, !refreshed, request.session == nil, let refresher {
                refreshed = true
                logger.info("refreshing the access token: \(name) answered 401")
                _ = try await sessions.refresh(replacing: usedSession) { refreshToken in try await refresher(self, refreshToken) }
                continue
            }
            if status == 401, token != nil, !refreshed, accessTokenProvider != nil {
                refreshed = true
                logger.info("asking the access token provider again: \(name) answered 401")
                continue
            }
            if configuration.retryPolicy.retryableStatuses.contains(status), request.isIdempotent, attempt < configuration.retryPolicy.maxAttempts {
                let retryAfter = RetryPolicy.parseRetryAfter(response.value(forHTTPHeaderField: "Retry-After"))
                let delay = configuration.retryPolicy.delay(afterAttempt: attempt, retryAfter: retryAfter)
                logger.info("retrying \(name) in \(RequestLog.seconds(delay)) after \(status) (attempt \(attempt + 1) of \(configuration.retryPolicy.maxAttempts))")
                try await Task.sleep(for: .seconds(delay))
                continue
            }
            if request.session == .signOut {
                await tokenStore.save(nil)
                events.post(.signedOut(.requested))
            }
            guard (200..<300).contains(status) else {
                let error = ErrorResponseMapper.error(status: status, body: data, headers: response, kinds: configuration.errorKinds)
                // The kind only: a server's detail can echo what was sent (a password that
                // failed validation, say).
                logger.error("\(name) failed: \(status) \(RequestLog.kind(of: error))", metadata: RequestLog.metadata(request, status: status))
                throw error
            }
            return data
        }
    }

    /// Whether a transport failure is the caller's cancellation. URLSession reports a request
    /// cancelled with its task as `URLError(.cancelled)`, not `CancellationError` (on Apple
    /// platforms always; on Linux depending on where the cancel lands), so both, and any failure
    /// of a cancelled task, are cancellation: not "the server could not be reached", and never
    /// retried.
    package static func isCancellation(_ error: any Error) -> Bool {
        error is CancellationError || (error as? URLError)?.code == .cancelled || Task.isCancelled
    }

    /// The access token a long-lived connection such as the realtime socket should present
    /// now: the stored one, refreshed first when it is about to expire; nil when signed out.
    /// Reading it at each connect is what makes a reconnect after a refresh use the new token.
    public func currentAccessToken() async throws -> String? {
        try await credentials(for: APIRequest(method: .get, path: "/realtime/socket", auth: .optionalBearer)).token
    }

    /// The bearer token to send with `request` (none for key-only requests, the stored one
    /// otherwise, refreshed first when it is known to be about to expire), and the stored
    /// session it comes from.
    private func credentials(for request: APIRequest) async throws -> (token: String?, session: StoredSession?) {
        guard request.auth == .bearer || request.auth == .optionalBearer else { return (nil, nil) }
        if let accessTokenProvider {
            do {
                return (try await accessTokenProvider(), nil)
            } catch {
                if Self.isCancellation(error) { throw CancellationError() }
                throw SelfDBError.authenticationError("the access token provider failed: \(error)")
            }
        }
        guard var session = await tokenStore.load() else {
            if request.auth == .bearer {
                throw SelfDBError.authenticationError("\(request.method.rawValue) \(request.path) needs a signed-in user; call auth.login first")
            }
            return (nil, nil)
        }
        if let expiresAt = session.expiresAt, expiresAt.timeIntervalSinceNow < configuration.refreshLeeway,
            session.refreshToken != nil, let refresher
        {
            configuration.logger.info("refreshing the access token before it expires")
            do {
                session = try await sessions.refresh(replacing: session) { refreshToken in try await refresher(self, refreshToken) }
            } catch let error as SelfDBError where expiresAt.timeIntervalSinceNow > 0 && !SessionCoordinator.isRefusal(error) {
                // Not yet expired: the token still serves while the refresh cannot be made.
                configuration.logger.info("the refresh before expiry failed (\(RequestLog.kind(of: error))); the current token still serves")
            }
        }
        return (session.accessToken, session)
    }

    /// The URL request for `request`, with the API key and `accessToken` when its auth needs them.
    public func makeURLRequest(_ request: APIRequest, accessToken: String?) throws -> URLRequest {
        guard var components = URLComponents(url: configuration.baseURL, resolvingAgainstBaseURL: false) else {
            throw SelfDBError.invalidArgument("invalid base URL \(configuration.baseURL)")
        }
        let basePath = components.percentEncodedPath.hasSuffix("/") ? String(components.percentEncodedPath.dropLast()) : components.percentEncodedPath
        components.percentEncodedPath = basePath + request.path
        let items = request.query.compactMap { item in
            item.value.map { "\(PathEncoding.encodeSegment(item.name))=\(PathEncoding.encodeSegment($0))" }
        }
        components.percentEncodedQuery = items.isEmpty ? nil : items.joined(separator: "&")
        guard let url = components.url else {
            throw SelfDBError.invalidArgument("cannot form a URL from \(request.path)")
        }
        var urlRequest = URLRequest(url: url)
        urlRequest.httpMethod = request.method.rawValue
        urlRequest.setValue("application/json", forHTTPHeaderField: "Accept")
        for (name, value) in configuration.additionalHeaders { urlRequest.setValue(value, forHTTPHeaderField: name) }
        for (name, value) in request.headers { urlRequest.setValue(value, forHTTPHeaderField: name) }
        if request.auth != .none, let apiKey = configuration.apiKey {
            urlRequest.setValue(apiKey, forHTTPHeaderField: "X-API-Key")
        }
        if let accessToken {
            urlRequest.setValue("Bearer \(accessToken)", forHTTPHeaderField: "Authorization")
        }
        switch request.body {
        case .none:
            break
        case .json(let data):
            urlRequest.setValue("application/json", forHTTPHeaderField: "Content-Type")
            urlRequest.httpBody = data
        case .bytes(let data, let contentType):
            urlRequest.setValue(contentType, forHTTPHeaderField: "Content-Type")
            urlRequest.httpBody = data
        }
        return urlRequest
    }

    private static func describe(_ error: any Error) -> String {
        guard let decoding = error as? DecodingError else { return "\(error)" }
        switch decoding {
        case .keyNotFound(let key, let context):
            return "missing key '\(key.stringValue)' at \(path(context.codingPath))"
        case .typeMismatch(let type, let context):
            return "expected \(type) at \(path(context.codingPath))"
        case .valueNotFound(let type, let context):
            return "null where \(type) was expected at \(path(context.codingPath))"
        case .dataCorrupted(let context):
            return "\(context.debugDescription) at \(path(context.codingPath))"
        @unknown default:
            return "\(error)"
        }
    }

    private static func path(_ codingPath: [any CodingKey]) -> String {
        codingPath.isEmpty ? "the top level" : codingPath.map { $0.intValue.map { "[\($0)]" } ?? $0.stringValue }.joined(separator: ".")
    }
}

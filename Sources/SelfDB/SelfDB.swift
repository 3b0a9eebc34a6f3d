import Foundation
import Logging
@_exported import SelfDBRealtime
@_exported import SelfDBRuntime

/// The SelfDB client: `SelfDB(baseUrl:apiKey:)`, then `auth`, `tables` and `storage`.
///
/// The endpoint groups and models are generated from `Spec/selfdb.yaml` by the build-tool
/// plugin; this class supplies what they share: the `APIClient` with its transport, API key
/// and session.
public final class SelfDB: Sendable {
    /// The client every generated endpoint sends through.
    public let apiClient: APIClient

    /// Realtime changes over the Phoenix Channels socket: `connect()`, `channel(_:)`,
    /// typed `changes(_:)`. It presents this client's API key and current access token.
    public let realtime: RealtimeClient

    /// The signed-in session, if any.
    public var session: StoredSession? {
        get async { await apiClient.session }
    }

    /// A client for the server at `baseUrl`, sending `apiKey` on every request.
    ///
    /// An invalid URL string is reported on the first call rather than trapping here.
    public convenience init(
        baseUrl: String,
        apiKey: String,
        transport: any HTTPTransport = platformHTTPTransport(),
        tokenStore: (any TokenStore)? = nil,
        retryPolicy: RetryPolicy = RetryPolicy(),
        realtime: RealtimeConfiguration = RealtimeConfiguration(),
        logger: Logger? = nil
    ) {
        let url = URL(string: baseUrl) ?? URL(fileURLWithPath: "/invalid-base-url")
        self.init(baseURL: url, apiKey: apiKey, transport: transport, tokenStore: tokenStore, retryPolicy: retryPolicy, realtime: realtime, logger: logger)
    }

    /// A client for the server at `baseURL`.
    ///
    /// - Parameters:
    ///   - baseURL: the SelfDB server's root URL (e.g. `http://localhost:8000`).
    ///   - apiKey: the project's API key, sent as `X-API-Key` with every request.
    ///   - transport: how requests are sent (by default `URLSession` on Apple platforms and
    ///     `CurlTransport` on Linux; inject one for tests).
    ///   - tokenStore: where the session lives: by default the Keychain on Apple platforms
    ///     (`KeychainTokenStore`, one item per server) and memory elsewhere; a `FileTokenStore`
    ///     in an app-group container shares it with the app's extensions, refreshes included.
    ///   - retryPolicy: retries of idempotent requests on 429, 503 and connection failures, and
    ///     of any request that could not reach the server.
    ///   - realtime: the realtime socket's serializer, heartbeat, backoff and WebSocket.
    ///   - logger: where the client and the realtime socket report what they do (requests at
    ///     debug, retries and refreshes at info, failures at error; connects, joins and
    ///     reconnects). Never a token, password or API key. Nothing is logged without one
    ///     (the realtime socket then uses `realtime.logger`).
    public init(
        baseURL: URL,
        apiKey: String,
        transport: any HTTPTransport = platformHTTPTransport(),
        tokenStore: (any TokenStore)? = nil,
        retryPolicy: RetryPolicy = RetryPolicy(),
        realtime: RealtimeConfiguration = RealtimeConfiguration(),
        logger: Logger? = nil
    ) {
        var realtime = realtime
        if let logger { realtime.logger = logger }
        let apiClient = APIClient(
            configuration: .init(baseURL: baseURL, apiKey: apiKey, errorKinds: Self.errorKinds, retryPolicy: retryPolicy, logger: logger ?? .selfdbDisabled),
            transport: transport,
            tokenStore: tokenStore ?? platformTokenStore(for: baseURL),
            refresher: { client, refreshToken in
                StoredSession(try await Auth(api: client).refresh(refreshToken: refreshToken))
            }
        )
        self.apiClient = apiClient
        self.realtime = RealtimeClient(baseURL: baseURL, configuration: realtime) {
            (apiKey, try await apiClient.currentAccessToken())
        }
    }
}

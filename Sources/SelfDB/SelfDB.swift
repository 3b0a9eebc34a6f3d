import Foundation
@_exported import SelfDBRuntime

/// The SelfDB client: `SelfDB(baseUrl:apiKey:)`, then `auth`, `tables` and `storage`.
///
/// The endpoint groups and models are generated from `Spec/selfdb.yaml` by the build-tool
/// plugin; this class supplies what they share: the `APIClient` with its transport, API key
/// and session.
public final class SelfDB: Sendable {
    /// The client every generated endpoint sends through.
    public let apiClient: APIClient

    /// The signed-in session, if any.
    public var session: StoredSession? {
        get async { await apiClient.session }
    }

    /// A client for the server at `baseUrl`, sending `apiKey` on every request.
    ///
    /// An invalid URL string is reported on the first call rather than trapping here.
    public convenience init(baseUrl: String, apiKey: String, transport: any HTTPTransport = URLSessionTransport(), tokenStore: any TokenStore = InMemoryTokenStore(), retryPolicy: RetryPolicy = RetryPolicy()) {
        let url = URL(string: baseUrl) ?? URL(fileURLWithPath: "/invalid-base-url")
        self.init(baseURL: url, apiKey: apiKey, transport: transport, tokenStore: tokenStore, retryPolicy: retryPolicy)
    }

    /// A client for the server at `baseURL`.
    ///
    /// - Parameters:
    ///   - transport: how requests are sent (URLSession by default; inject one for tests).
    ///   - tokenStore: where the session lives (memory by default; `FileTokenStore` persists it).
    ///   - retryPolicy: retries of idempotent requests on 429, 503 and connection failures.
    public init(baseURL: URL, apiKey: String, transport: any HTTPTransport = URLSessionTransport(), tokenStore: any TokenStore = InMemoryTokenStore(), retryPolicy: RetryPolicy = RetryPolicy()) {
        apiClient = APIClient(
            configuration: .init(baseURL: baseURL, apiKey: apiKey, errorKinds: Self.errorKinds, retryPolicy: retryPolicy),
            transport: transport,
            tokenStore: tokenStore,
            refresher: { client, refreshToken in
                StoredSession(try await Auth(api: client).refresh(refreshToken: refreshToken))
            }
        )
    }
}

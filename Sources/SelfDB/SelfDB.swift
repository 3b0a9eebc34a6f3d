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

    /// A client for the server at `baseUrl`, sending `apiKey` on every request.
    ///
    /// An invalid URL string is reported on the first call rather than trapping here.
    public convenience init(baseUrl: String, apiKey: String, transport: any HTTPTransport = URLSessionTransport(), tokenStore: any TokenStore = InMemoryTokenStore()) {
        let url = URL(string: baseUrl) ?? URL(fileURLWithPath: "/invalid-base-url")
        self.init(baseURL: url, apiKey: apiKey, transport: transport, tokenStore: tokenStore)
    }

    /// A client for the server at `baseURL`.
    public init(baseURL: URL, apiKey: String, transport: any HTTPTransport = URLSessionTransport(), tokenStore: any TokenStore = InMemoryTokenStore()) {
        apiClient = APIClient(
            configuration: .init(baseURL: baseURL, apiKey: apiKey, errorKinds: Self.errorKinds),
            transport: transport,
            tokenStore: tokenStore
        )
    }
}

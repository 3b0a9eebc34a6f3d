import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Sends one HTTP request. The client's only door to the network, so tests and apps can put
/// their own transport in (a recording one, one with certificate pinning...).
public protocol HTTPTransport: Sendable {
    /// Sends `request` and returns the body and response, or throws for a transport failure
    /// (the server's HTTP errors are responses, not throws).
    func send(_ request: URLRequest) async throws -> (Data, HTTPURLResponse)
}

/// `URLSession`, on Apple platforms and on Linux (FoundationNetworking).
public struct URLSessionTransport: HTTPTransport {
    private let session: URLSession

    /// Uses `session`, by default an ephemeral one (no shared cookie store or cache: the
    /// client manages credentials itself).
    public init(session: URLSession = URLSession(configuration: .ephemeral)) {
        self.session = session
    }

    public func send(_ request: URLRequest) async throws -> (Data, HTTPURLResponse) {
        let (data, response) = try await session.data(for: request)
        guard let http = response as? HTTPURLResponse else {
            throw URLError(.badServerResponse)
        }
        return (data, http)
    }
}

/// The transport a client uses when the app gives none: ``URLSessionTransport`` on Apple
/// platforms, ``CurlTransport`` on Linux (where FoundationNetworking keeps a core busy while each
/// request waits for its answer: see ``CurlTransport``). The default of ``APIClient``, of
/// `SelfDB`, of `SynchroClient` and of every client generated from a spec.
public func platformHTTPTransport() -> any HTTPTransport {
    #if canImport(CCurl)
    CurlTransport()
    #else
    URLSessionTransport()
    #endif
}

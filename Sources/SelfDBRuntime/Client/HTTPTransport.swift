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

    /// Sends `request` with the contents of `file` as its body, read from disk as it goes out
    /// (never whole in memory), and returns the answer's body and response, reporting the
    /// bytes sent to `progress`. A file that cannot be read throws ``TransferFileError``.
    ///
    /// A transport that does not implement it gets a default that reads the whole file into
    /// memory and calls ``send(_:)``.
    func upload(_ request: URLRequest, fromFile file: URL, progress: TransferProgressHandler?) async throws -> (Data, HTTPURLResponse)

    /// Sends `request` and writes the answer's body into `file` (created, or emptied first) as
    /// it arrives, whatever its status, reporting the bytes received to `progress`; returns the
    /// response. A file that cannot be written (a full disk included) throws
    /// ``TransferFileError``. What is left in `file` after a failure is the caller's to remove.
    ///
    /// A transport that does not implement it gets a default that receives the whole body in
    /// memory with ``send(_:)`` and then writes it.
    func download(_ request: URLRequest, toFile file: URL, progress: TransferProgressHandler?) async throws -> HTTPURLResponse
}

/// `URLSession`, on Apple platforms and on Linux (FoundationNetworking).
///
/// On Apple platforms URLSession sends a request again by itself only when it is idempotent,
/// and reports `URLError(.networkConnectionLost)` for any other whose connection failed
/// (Technical Q&A QA1941). On Linux, FoundationNetworking runs libcurl, which sends any request
/// again on a new connection when a kept-alive one died before the answer began, and
/// FoundationNetworking then stalls until the request's timeout without writing it (measured:
/// 60 s, then `URLError(.timedOut)`). So on Linux every request asks for a connection of its
/// own (`Connection: close`): libcurl never resends on a new connection, a failure is reported
/// at once, and each request costs a connection. ``CurlTransport``, the default on Linux, keeps
/// connections alive and needs none of this.
public struct URLSessionTransport: HTTPTransport {
    let session: URLSession

    /// Uses `session`, by default an ephemeral one (no shared cookie store or cache: the
    /// client manages credentials itself).
    public init(session: URLSession = URLSession(configuration: .ephemeral)) {
        self.session = session
    }

    public func send(_ request: URLRequest) async throws -> (Data, HTTPURLResponse) {
        #if canImport(FoundationNetworking)
        var request = request
        request.setValue("close", forHTTPHeaderField: "Connection")
        #endif
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

import Foundation
import SelfDB

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// URLSession with a switch that makes every request fail as a refused connection: how the
/// offline demo simulates an outage of a real server it cannot stop.
final class OutageTransport: HTTPTransport, @unchecked Sendable {
    private let base = URLSessionTransport()
    private let lock = NSLock()
    private var down = false

    /// Whether requests are refused.
    var isDown: Bool {
        get { lock.withLock { down } }
        set { lock.withLock { down = newValue } }
    }

    func send(_ request: URLRequest) async throws -> (Data, HTTPURLResponse) {
        if isDown { throw URLError(.cannotConnectToHost) }
        return try await base.send(request)
    }
}

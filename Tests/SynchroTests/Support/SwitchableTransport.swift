import Foundation
import Synchro

#if canImport(FoundationNetworking)
import FoundationNetworking
import SelfDBRuntime
#endif

/// A real transport with an off switch: while off, every request fails as it would with
/// the network down. Lets one device go offline while the others keep syncing.
struct SwitchableTransport: HTTPTransport {
    let isOffline = Locked(false)
    private let real = URLSessionTransport()

    func send(_ request: URLRequest) async throws -> (Data, HTTPURLResponse) {
        if isOffline.current { throw URLError(.notConnectedToInternet) }
        return try await real.send(request)
    }
}

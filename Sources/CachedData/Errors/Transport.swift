import Foundation
import SelfDB

/// Which errors mean "the server was not reached", as opposed to "the server said no".
enum Transport {
    /// The `URLError` codes of a request that never got an answer.
    private static let unreachable: Set<URLError.Code> = [
        .notConnectedToInternet, .networkConnectionLost, .timedOut, .cannotConnectToHost,
        .cannotFindHost, .dnsLookupFailed, .internationalRoamingOff, .dataNotAllowed,
        .callIsActive, .secureConnectionFailed, .cancelled, .backgroundSessionWasDisconnected,
    ]

    /// A transport failure: a `URLError` of the codes above, a cancellation, or a SelfDB
    /// client's connection failure (for items whose calls go through the SelfDB client).
    static func isUnreachable(_ error: any Error) -> Bool {
        if let error = error as? URLError { return unreachable.contains(error.code) }
        if error is CancellationError { return true }
        if case .connectionError(let underlying)? = error as? SelfDBError {
            return (underlying as? URLError).map { unreachable.contains($0.code) } ?? true
        }
        return false
    }
}

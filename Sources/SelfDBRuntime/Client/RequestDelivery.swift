import Foundation

/// What a failed request without an answer says about the server: whether it may have
/// received the request, and acted on it.
///
/// Every transport reports its failures this way, so the client's retry policy, the cache and
/// Synchro decide the same thing from the same fact: a request that certainly did not reach the
/// server may be sent again whatever it does; one that may have reached it is sent again only if
/// it is idempotent, and otherwise its outcome is settled by looking first (RFC 9110 §9.2.2;
/// Apple's Technical Q&A QA1941 for `URLSession`).
public enum RequestDelivery: String, Sendable, Hashable, CustomStringConvertible {
    /// Nothing reached the server: the connection was never made (refused, unreachable, no
    /// network, a name that does not resolve, a TLS handshake that failed) or failed before
    /// any byte of the request was written. Sending again cannot apply it twice.
    case notSent
    /// The request may have reached the server and been applied: the connection was lost,
    /// reset or timed out after the request was written, or the answer was cut.
    case unknown

    /// The key of a `URLError`'s `userInfo` under which ``CurlTransport`` (and any transport
    /// that knows) records the delivery as its raw value, where the error code alone cannot
    /// tell (a connection reset before or after the request was written).
    public static let userInfoKey = "SelfDBRequestDelivery"

    /// The delivery a transport failure implies: what the transport recorded under
    /// ``userInfoKey`` if it did, else what the `URLError` code means on every platform
    /// (URLSession's codes), and ``unknown`` for any other error.
    public init(of error: any Error) {
        guard let urlError = error as? URLError else {
            self = .unknown
            return
        }
        if let recorded = urlError.userInfo[Self.userInfoKey] as? String, let delivery = RequestDelivery(rawValue: recorded) {
            self = delivery
            return
        }
        switch urlError.code {
        case .cannotFindHost, .cannotConnectToHost, .dnsLookupFailed, .notConnectedToInternet, .internationalRoamingOff,
            .callIsActive, .dataNotAllowed, .secureConnectionFailed, .serverCertificateUntrusted, .serverCertificateHasBadDate,
            .serverCertificateHasUnknownRoot, .serverCertificateNotYetValid, .clientCertificateRejected, .clientCertificateRequired,
            .appTransportSecurityRequiresSecureConnection, .badURL, .unsupportedURL, .cannotLoadFromNetwork:
            self = .notSent
        default:
            // .networkConnectionLost, .timedOut, .badServerResponse, .cancelled...: the request
            // may have been written before the failure.
            self = .unknown
        }
    }

    /// What the delivery means, for a log line or an error's text.
    public var description: String {
        switch self {
        case .notSent: "the request did not reach the server"
        case .unknown: "the request may have reached the server (outcome unknown)"
        }
    }
}

extension URLError {
    /// This error with `delivery` recorded under ``RequestDelivery/userInfoKey``.
    package func recording(_ delivery: RequestDelivery) -> URLError {
        var info = userInfo
        info[RequestDelivery.userInfoKey] = delivery.rawValue
        return URLError(code, userInfo: info)
    }
}

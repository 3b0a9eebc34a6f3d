import Foundation
import SelfDB

/// What the cache can fail with. Each case has a `userFriendlyMessage` fit for an alert.
public enum CacheError: Error, Sendable, CustomStringConvertible {
    /// The server refused a mutation; the cache was rolled back to the state before it.
    case rejected(SelfDBError)
    /// A fetch failed; what the cache held is still shown.
    case fetchFailed(SelfDBError)
    /// The server could not be reached and the request could not be served from the cache.
    case offline(SelfDBError)
    /// The cache database could not be opened, read or written.
    case storage(String)
    /// A cached row could not be decoded (the model changed, or the file was damaged);
    /// the stored text is left untouched.
    case corruptItem(type: String, id: String, reason: String)
    /// A bad argument (an empty view name, a page size outside 1–1000...).
    case invalidArgument(String)
    /// The load was cancelled (by `reload()` or task cancellation).
    case cancelled

    /// Whether this is a cancellation, which an interface usually ignores.
    public var isCancellation: Bool {
        if case .cancelled = self { true } else { false }
    }

    /// A short message for a person, without internals.
    public var userFriendlyMessage: String {
        switch self {
        case .rejected(let error):
            switch error {
            case .notFound: "This item no longer exists or you cannot change it. Your change was undone."
            case .permissionDenied, .authenticationError: "You are not allowed to make this change. It was undone."
            case .validationFailed, .badRequest, .invalidArgument: "The server did not accept this change (\(error.detail)). It was undone."
            default: "The server refused this change. It was undone."
            }
        case .fetchFailed: "Could not refresh from the server. Showing saved data."
        case .offline: "You are offline. Showing what is saved on this device."
        case .storage: "The data saved on this device could not be accessed."
        case .corruptItem: "Some saved data could not be read."
        case .invalidArgument(let text): "Invalid request: \(text)."
        case .cancelled: "Cancelled."
        }
    }

    public var description: String {
        switch self {
        case .rejected(let error): "mutation rejected: \(error)"
        case .fetchFailed(let error): "fetch failed: \(error)"
        case .offline(let error): "offline: \(error)"
        case .storage(let text): "cache storage: \(text)"
        case .corruptItem(let type, let id, let reason): "cached \(type) \(id) is unreadable: \(reason)"
        case .invalidArgument(let text): "invalid argument: \(text)"
        case .cancelled: "cancelled"
        }
    }
}

extension SelfDBError {
    /// Whether the failure says nothing about the mutation itself (no network, server
    /// overloaded, signed out), so the mutation should wait for a retry rather than be
    /// rolled back.
    var isTransient: Bool {
        switch self {
        case .connectionError, .serviceUnavailable, .rateLimited, .authenticationError: true
        case .unexpectedStatus(let status, _): status == 502 || status == 504
        default: false
        }
    }
}

extension Error {
    /// Any error of a client call as a `SelfDBError` (URLSession errors that escaped the
    /// client's mapping count as connection errors).
    var asSelfDBError: SelfDBError {
        if let error = self as? SelfDBError { return error }
        if self is URLError { return .connectionError(self) }
        return .invalidResponse("\(self)")
    }
}

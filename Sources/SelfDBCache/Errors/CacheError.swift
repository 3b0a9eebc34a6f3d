import Foundation
import SelfDB

/// What the cache can fail with. Each case has a `userFriendlyMessage` fit for an alert.
public enum CacheError: Error, Sendable, CustomStringConvertible {
    /// The server refused a mutation; the cache was rolled back to the state before it.
    case rejected(SelfDBError)
    /// The app's own mutation call (``CacheMutations``) threw an error that is not a client
    /// error: a refusal, so the cache was rolled back. The error is the app's, as thrown.
    case refused(any Error)
    /// A fetch failed; what the cache held is still shown.
    case fetchFailed(SelfDBError)
    /// The app's own loader (`.pages`, `.cursor`, `.one(id:fetch:)`) threw an error that is
    /// not a client error; what the cache held is still shown. The error is the app's, as thrown.
    case loaderFailed(any Error)
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
        case .refused: "The change was not accepted. It was undone."
        case .fetchFailed, .loaderFailed: "Could not refresh from the server. Showing saved data."
        case .offline: "You are offline. Showing what is saved on this device."
        case .storage: "The data saved on this device could not be accessed."
        case .corruptItem: "Some saved data could not be read."
        case .invalidArgument(let text): "Invalid request: \(text)."
        case .cancelled: "Cancelled."
        }
    }

    /// What went wrong, with the underlying error or reason.
    public var description: String {
        switch self {
        case .rejected(let error): "mutation rejected: \(error)"
        case .refused(let error): "mutation refused: \(error)"
        case .fetchFailed(let error): "fetch failed: \(error)"
        case .loaderFailed(let error): "fetch failed: \(error)"
        case .offline(let error): "offline: \(error)"
        case .storage(let text): "cache storage: \(text)"
        case .corruptItem(let type, let id, let reason): "cached \(type) \(id) is unreadable: \(reason)"
        case .invalidArgument(let text): "invalid argument: \(text)"
        case .cancelled: "cancelled"
        }
    }
}

extension CacheError {
    /// A table model used in a cache opened without a client.
    static func needsClient(_ type: Any.Type) -> CacheError {
        .invalidArgument("\(type) is a table model, which needs a SelfDB client: open the cache with SelfDBCache(selfdb:path:)")
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
    /// The error as a `SelfDBError` if it is a client error (URLSession errors that escaped
    /// the client's mapping count as connection errors); nil for the app's own errors.
    var clientError: SelfDBError? {
        if let error = self as? SelfDBError { return error }
        if self is URLError { return .connectionError(self) }
        return nil
    }
}

import Foundation
import SelfDB
import SelfDBCache

/// Why a fetcher's `setup()`, `load()` or `reload()` failed. The items the cache holds stay
/// shown whatever the failure.
public enum CAFetchError: NotifiableError {
    /// The load was cancelled, by `reload()` starting over or by the task's cancellation.
    case cancelled
    /// The server could not be reached (the item's `fetch` threw a transport error).
    case offline(any Error)
    /// The item's `fetch` threw this error.
    case caught(any Error)
    /// The server answered with something the fetcher cannot use.
    case serverFailure(String)
    /// The cache file could not be opened, read or written, or holds an item that no longer reads.
    case storage(String)
    /// A bad argument (an empty view id, one starting with `#`...).
    case invalidArgument(String)

    /// Whether this is a cancellation, which an interface usually ignores.
    public var isCancellationError: Bool {
        switch self {
        case .cancelled: true
        case .caught(let error): error is CancellationError || (error as? URLError)?.code == .cancelled
        default: false
        }
    }

    /// Cancellations are not worth telling.
    public var userNotable: Bool { !isCancellationError }

    /// A short message for a person, without internals.
    public var userFriendlyMessage: String {
        switch self {
        case .cancelled: "Cancelled."
        case .offline: "You are offline. Showing what is saved on this device."
        case .caught(let error): FriendlyMessage.of(error, otherwise: "Could not load the latest data. Showing what is saved on this device.")
        case .serverFailure: "The server sent something unexpected. Showing what is saved on this device."
        case .storage: "The data saved on this device could not be accessed."
        case .invalidArgument(let text): "Invalid request: \(text)."
        }
    }

    /// The engine's error as the note's.
    init(_ error: any Error) {
        guard let error = error as? CacheError else {
            self = error is CancellationError ? .cancelled : .caught(error)
            return
        }
        switch error {
        case .cancelled: self = .cancelled
        case .offline(let failure): self = .offline(Self.underlying(failure))
        case .loaderFailed(let error), .refused(let error): self = .caught(error)
        case .fetchFailed(.invalidResponse(let text)): self = .serverFailure(text)
        case .fetchFailed(let failure), .rejected(let failure): self = .caught(failure)
        case .storage(let text): self = .storage(text)
        case .corruptItem: self = .storage(error.description)
        case .invalidArgument(let text): self = .invalidArgument(text)
        }
    }

    /// The transport's own error inside a connection failure (the `URLError` the fetch threw).
    static func underlying(_ failure: SelfDBError) -> any Error {
        if case .connectionError(let error) = failure { return error }
        return failure
    }
}

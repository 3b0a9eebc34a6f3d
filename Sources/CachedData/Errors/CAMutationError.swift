import Foundation

/// Why a mutation failed: thrown by a ``CAMutableItem``'s `insert`/`update`/`delete`, and by
/// the handlers (``CAHandlers``) after they rolled the cache back.
///
/// `.caught` of a transport error (a `URLError` saying the server could not be reached, see
/// ``isTransportFailure``) is not a refusal: the mutation stays queued, durably, and the
/// handler returns normally. Every other case is a refusal.
public enum CAMutationError: NotifiableError {
    /// The server refused the change.
    case failed
    /// The server accepted the request but changed nothing.
    case noAffectedRows
    /// The user is not signed in, or may not make this change.
    case unauthorized
    /// This error was thrown while sending the change.
    case caught(any Error)

    /// Whether the server could not be reached at all (no connection, timeout, host not
    /// found, cancelled): such a mutation is kept and sent again later.
    public var isTransportFailure: Bool {
        guard case .caught(let error) = self else { return false }
        return Transport.isUnreachable(error)
    }

    /// A short message for a person, without internals.
    public var userFriendlyMessage: String {
        switch self {
        case .failed: "The change could not be saved. It was undone."
        case .noAffectedRows: "Nothing was changed. Please check and try again."
        case .unauthorized: "You are not signed in, or not allowed to make this change."
        case .caught(let error): FriendlyMessage.of(error, otherwise: "The change could not be saved. It was undone.")
        }
    }
}

import Foundation

/// An error with a message fit to show a person, and a say in whether to show it at all.
public protocol NotifiableError: Error, Sendable {
    /// A short message for a person, without internals.
    var userFriendlyMessage: String { get }
    /// Whether an interface should tell the user (cancellations, say, should not).
    var userNotable: Bool { get }
}

extension NotifiableError {
    /// Errors are worth telling by default.
    public var userNotable: Bool { true }
}

/// Messages for errors that come from elsewhere (the app's fetch, the transport).
enum FriendlyMessage {
    static func of(_ error: any Error, otherwise fallback: String) -> String {
        if let error = error as? any NotifiableError { return error.userFriendlyMessage }
        if let error = error as? URLError, Transport.isUnreachable(error) { return "You are offline. Your changes are saved on this device." }
        if let description = (error as? any LocalizedError)?.errorDescription { return description }
        return fallback
    }
}

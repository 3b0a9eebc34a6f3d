import Foundation

/// A change of the signed-in state, as ``APIClient/authChanges`` (`selfdb.auth.stateChanges`)
/// tells it: first the session stored when the stream is made, then each change once, in order.
public enum AuthChange: Sendable, Equatable {
    /// The session stored when the stream was made, or nil when signed out.
    case initialSession(StoredSession?)
    /// A sign-in stored this session (here, or in another process sharing the store).
    case signedIn(StoredSession)
    /// A refresh replaced the tokens (here, or in another process sharing the store).
    case tokenRefreshed(StoredSession)
    /// A response showed the signed-in user changed (their record as the server holds it now).
    case userUpdated(SessionUserRecord)
    /// The session ended, and why.
    case signedOut(SignOutReason)
}

/// Why a session ended.
public enum SignOutReason: Sendable, Equatable {
    /// The app signed out (a sign-out call).
    case requested
    /// The server refused the refresh token (expired, or revoked by a sign-out elsewhere); its
    /// words.
    case refreshRefused(String)
    /// The server revoked every session of the user (SelfDB's answer to a refresh token used
    /// twice at once); its words.
    case sessionRevoked(String)
    /// Another process sharing the store signed out.
    case elsewhere
}

/// The signed-in user as a response showed it: its id and the response's JSON, compared to
/// tell an update from the same record seen again.
public struct SessionUserRecord: Sendable, Equatable {
    /// The user's id (the access token's `sub`).
    public var id: String
    /// The record, encoded.
    public var json: Data

    /// A record of user `id`.
    public init(id: String, json: Data) {
        self.id = id
        self.json = json
    }

    /// The record decoded as `User` (the generated `UserRead`, say).
    public func decode<User: Decodable>(as type: User.Type) throws -> User {
        try JSONCoding.makeDecoder().decode(User.self, from: json)
    }
}

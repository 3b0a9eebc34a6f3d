import Foundation

/// A user record as an endpoint returns it. Spec models conform with `conforms: [SessionUser]`
/// (SelfDB's `UserRead` does): a response that carries the signed-in user (the access token's
/// `sub`) and shows them changed since the last one is told as
/// ``AuthChange/userUpdated(_:)``.
public protocol SessionUser: Encodable, Sendable {
    /// The user's id as the access token's `sub` spells it.
    var sessionUserID: String { get }
}

extension SessionUser where Self: Identifiable, ID == UUID {
    /// The id in lower case, as SelfDB writes it in a token's `sub`.
    public var sessionUserID: String { id.uuidString.lowercased() }
}

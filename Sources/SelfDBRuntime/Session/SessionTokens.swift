import Foundation

/// A token pair as an auth endpoint returns it. Spec models conform with `conforms:
/// [SessionTokens]`, so the client can keep the tokens of an endpoint marked `session: signIn`.
public protocol SessionTokens: Sendable {
    /// The bearer token.
    var accessToken: String { get }
    /// The refresh token, when the server issues one.
    var refreshToken: String? { get }
    /// Seconds until the access token expires, when known.
    var expiresIn: Int? { get }
}

/// The tokens a client holds for its signed-in user.
public struct StoredSession: Sendable, Hashable, Codable {
    /// The bearer token.
    public var accessToken: String
    /// The refresh token.
    public var refreshToken: String?
    /// When the access token expires, when known.
    public var expiresAt: Date?

    /// Creates a session.
    public init(accessToken: String, refreshToken: String?, expiresAt: Date?) {
        self.accessToken = accessToken
        self.refreshToken = refreshToken
        self.expiresAt = expiresAt
    }

    /// A session from a token response received now.
    public init(_ tokens: some SessionTokens, receivedAt now: Date = Date()) {
        self.init(accessToken: tokens.accessToken, refreshToken: tokens.refreshToken, expiresAt: tokens.expiresIn.map { now.addingTimeInterval(TimeInterval($0)) })
    }
}

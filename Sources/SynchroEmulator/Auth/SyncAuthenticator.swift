import EmulatorSupport
import Foundation

/// Who is calling a `/sync/*` endpoint: the `sub` of a bearer JWT, lower-cased.
///
/// Accepted are the emulator's own access tokens (so an app signs in with SelfDB and syncs
/// with the same token) and, when a secret is configured, any HS256 token signed with it
/// (as a Synchro deployment behind another identity provider would see).
package struct SyncAuthenticator: Sendable {
    /// The user id (`sub`) of one of the emulator's own access tokens when it is well formed,
    /// well signed and not expired at the given instant; nil otherwise.
    package typealias AccessTokenVerifier = @Sendable (_ token: String, _ now: Date) -> String?

    let verifyEmulatorToken: AccessTokenVerifier
    /// The bytes of the configured HS256 secret; nil when only emulator tokens count.
    let externalSecret: [UInt8]?

    /// The caller's user id, or nil when the token is missing, malformed, badly signed or
    /// expired.
    func userID(bearer token: String?, now: Date = Date()) -> String? {
        guard let token, !token.isEmpty else { return nil }
        if let subject = verifyEmulatorToken(token, now) {
            return subject.lowercased()
        }
        guard let externalSecret else { return nil }
        return Self.verifyExternal(token, secret: externalSecret, now: now)
    }

    /// HS256 with any claims: `sub` must be a non-empty string; `exp` and `nbf`, when
    /// present, must hold now.
    private static func verifyExternal(_ token: String, secret: [UInt8], now: Date) -> String? {
        guard let claims = HS256.verifiedClaims(token, secret: secret),
            let subject = claims["sub"]?.stringValue, !subject.isEmpty
        else { return nil }
        let seconds = now.timeIntervalSince1970
        if let expiry = claims["exp"] {
            guard let value = numeric(expiry), value > seconds else { return nil }
        }
        if let notBefore = claims["nbf"] {
            guard let value = numeric(notBefore), value <= seconds else { return nil }
        }
        return subject.lowercased()
    }

    private static func numeric(_ value: JSONValue) -> Double? {
        switch value {
        case .int(let number): Double(number)
        case .double(let number): number
        default: nil
        }
    }
}

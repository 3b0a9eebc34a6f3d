import EmulatorSupport
import Foundation

/// HS256 JSON Web Tokens with exactly SelfDB's claims: `sub`, `role`, `exp`.
///
/// SelfDB puts no `iat` or `jti` in its tokens, so two tokens minted for the same user in
/// the same second are byte-for-byte equal; clients rely on nothing else, and neither do we.
struct JSONWebToken: Sendable {
    /// The verified claims of an access token.
    struct Claims: Sendable, Equatable {
        var subject: String
        var role: String
        var expiresAt: Int64
    }

    private let secret: [UInt8]

    init(secret: [UInt8]) {
        self.secret = secret
    }

    func sign(_ claims: Claims) -> String {
        HS256.sign(["sub": .string(claims.subject), "role": .string(claims.role), "exp": .int(claims.expiresAt)], secret: secret)
    }

    /// The claims of a well-formed, correctly signed, unexpired token; nil otherwise.
    func verify(_ token: String, now: Date) -> Claims? {
        guard let payload = HS256.verifiedClaims(token, secret: secret),
            let subject = payload["sub"]?.stringValue,
            let expiresAt = payload["exp"]?.intValue
        else { return nil }
        guard Double(expiresAt) > now.timeIntervalSince1970 else { return nil }
        return Claims(subject: subject, role: payload["role"]?.stringValue ?? "USER", expiresAt: expiresAt)
    }
}

import Foundation

/// What the client reads of an access token without verifying it (the server does that): the
/// user it names. SelfDB's tokens are HS256 JWTs whose `sub` is the user's id.
enum AccessTokenClaims {
    /// The `sub` claim, lower-cased; nil when the token is not a JWT that has one.
    static func subject(of token: String) -> String? {
        let parts = token.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3 else { return nil }
        var base64 = parts[1].replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        base64 += String(repeating: "=", count: (4 - base64.count % 4) % 4)
        guard let data = Data(base64Encoded: base64),
            let claims = try? JSONSerialization.jsonObject(with: data) as? [String: Any],
            let subject = claims["sub"] as? String
        else { return nil }
        return subject.lowercased()
    }
}

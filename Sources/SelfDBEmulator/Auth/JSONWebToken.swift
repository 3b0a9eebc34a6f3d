import Crypto
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

    // SymmetricKey is not Sendable; keeping the bytes and wrapping them per use is cheap.
    private let secret: [UInt8]
    private var key: SymmetricKey { SymmetricKey(data: secret) }
    private static let header = Base64URL.encode(Array(#"{"alg":"HS256","typ":"JWT"}"#.utf8))

    init(secret: [UInt8]) {
        self.secret = secret
    }

    func sign(_ claims: Claims) -> String {
        let payload: JSONValue = [
            "sub": .string(claims.subject),
            "role": .string(claims.role),
            "exp": .int(claims.expiresAt),
        ]
        let signingInput = Self.header + "." + Base64URL.encode(JSONWriter.bytes(payload))
        let signature = HMAC<SHA256>.authenticationCode(for: Array(signingInput.utf8), using: key)
        return signingInput + "." + Base64URL.encode(signature)
    }

    /// The claims of a well-formed, correctly signed, unexpired token; nil otherwise.
    func verify(_ token: String, now: Date) -> Claims? {
        let parts = token.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3,
            let headerBytes = Base64URL.decode(parts[0]),
            let payloadBytes = Base64URL.decode(parts[1]),
            let signature = Base64URL.decode(parts[2])
        else { return nil }
        let signingInput = Array("\(parts[0]).\(parts[1])".utf8)
        guard HMAC<SHA256>.isValidAuthenticationCode(signature, authenticating: signingInput, using: key) else {
            return nil
        }
        guard let header = try? JSONParser.parse(headerBytes), header["alg"]?.stringValue == "HS256",
            let payload = try? JSONParser.parse(payloadBytes),
            let subject = payload["sub"]?.stringValue,
            let expiresAt = payload["exp"]?.intValue
        else { return nil }
        guard Double(expiresAt) > now.timeIntervalSince1970 else { return nil }
        return Claims(subject: subject, role: payload["role"]?.stringValue ?? "USER", expiresAt: expiresAt)
    }
}

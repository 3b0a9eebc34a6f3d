import Crypto

/// Compact HS256 JWTs with arbitrary claims: the signing and checking under the emulator's
/// own tokens (``JSONWebToken``) and the external tokens the Synchro server accepts.
package enum HS256 {
    private static let header = Base64URL.encode(Array(#"{"alg":"HS256","typ":"JWT"}"#.utf8))

    package static func sign(_ claims: JSONValue, secret: [UInt8]) -> String {
        let input = header + "." + Base64URL.encode(JSONWriter.bytes(claims))
        let signature = HMAC<SHA256>.authenticationCode(for: Array(input.utf8), using: SymmetricKey(data: secret))
        return input + "." + Base64URL.encode(signature)
    }

    /// The claims of a well-formed token with `alg: HS256` and a valid signature; nil
    /// otherwise. Expiry is the caller's business.
    package static func verifiedClaims(_ token: String, secret: [UInt8]) -> JSONValue? {
        let parts = token.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3,
            let headerBytes = Base64URL.decode(parts[0]),
            let payloadBytes = Base64URL.decode(parts[1]),
            let signature = Base64URL.decode(parts[2])
        else { return nil }
        let input = Array("\(parts[0]).\(parts[1])".utf8)
        guard HMAC<SHA256>.isValidAuthenticationCode(signature, authenticating: input, using: SymmetricKey(data: secret)),
            let header = try? JSONParser.parse(headerBytes), header["alg"]?.stringValue == "HS256",
            let claims = try? JSONParser.parse(payloadBytes), claims.objectValue != nil
        else { return nil }
        return claims
    }
}

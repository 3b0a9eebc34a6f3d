import Crypto
import EmulatorSupport

/// Scope cursors in the real server's own format (`synchro-pg/src/cursor_token.rs`):
/// `v2.<base64url(payload)>.<base64url(HMAC-SHA256(secret, payload segment))>`, the payload
/// `{"scope_id":…,"stream_generation":…,"checkpoint":N}`.
///
/// A cursor is opaque to clients; the server tells three cases apart. One it issued for this
/// scope and stream generation is **valid**. One it cannot vouch for — no `v2` prefix (a legacy
/// or foreign token), a signature that does not verify (forged or from another database), an
/// older stream generation — is **stale**: the scope is rebuilt, no error. One that carries a
/// valid signature but is corrupt in this format, or names another scope, is **invalid**: 400.
struct ScopeCursorToken: Sendable {
    /// The database's stream generation and cursor secret; changing either makes every
    /// outstanding cursor stale.
    let streamGeneration: String
    let secret: [UInt8]

    /// What a cursor turned out to be.
    enum Verdict: Equatable, Sendable {
        /// Issued here for this scope: resume after `checkpoint`.
        case valid(checkpoint: Int64)
        /// Not vouched for: rebuild the scope.
        case stale
        /// Corrupt in this format, or another scope's: a 400 with `reason`.
        case invalid(reason: String)
    }

    /// A cursor for `scope` at change-log sequence `checkpoint`.
    func issue(scope: String, checkpoint: Int64) -> String {
        var payload = JSONObject()
        payload["scope_id"] = .string(scope)
        payload["stream_generation"] = .string(streamGeneration)
        payload["checkpoint"] = .int(checkpoint)
        let segment = Base64URL.encode(JSONWriter.bytes(.object(payload)))
        return "v2.\(segment).\(Base64URL.encode(Self.signature(segment, secret: secret)))"
    }

    /// What `token`, sent for `scope`, is.
    func verify(_ token: String, scope: String) -> Verdict {
        guard token.hasPrefix("v2") else { return .stale }
        let parts = token.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3, parts[0] == "v2", !parts[1].isEmpty, !parts[2].isEmpty else {
            return .invalid(reason: "malformed token")
        }
        // The signature first: a forged token is stale whatever its payload claims.
        guard let sent = Base64URL.decode(parts[2]), sent.count == SHA256.byteCount,
            HMAC<SHA256>.isValidAuthenticationCode(sent, authenticating: Array(parts[1].utf8), using: SymmetricKey(data: secret))
        else { return .stale }
        guard let bytes = Base64URL.decode(parts[1]), case .object(let payload)? = try? JSONParser.parse(bytes),
            case .string(let scopeID)? = payload["scope_id"], case .string(let generation)? = payload["stream_generation"],
            case .int(let checkpoint)? = payload["checkpoint"], checkpoint >= 0
        else { return .invalid(reason: "malformed payload") }
        guard scopeID == scope else { return .invalid(reason: "issued for scope \(scopeID)") }
        guard generation == streamGeneration else { return .stale }
        return .valid(checkpoint: checkpoint)
    }

    /// HMAC-SHA256 of the payload segment's ASCII, keyed with the secret's bytes.
    static func signature(_ segment: String, secret: [UInt8]) -> [UInt8] {
        Array(HMAC<SHA256>.authenticationCode(for: Array(segment.utf8), using: SymmetricKey(data: secret)))
    }
}

import Crypto
import EmulatorSupport
import Foundation
import _CryptoExtras

/// Salted PBKDF2-HMAC-SHA256 password hashes, stored as
/// `pbkdf2_sha256$<iterations>$<salt>$<hash>` so a change of the iteration count never
/// invalidates existing accounts.
struct PasswordHasher: Sendable {
    let iterations: Int

    func hash(_ password: String) throws -> String {
        var generator = SystemRandomNumberGenerator()
        let salt = (0..<16).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
        let derived = try derive(password, salt: salt, iterations: iterations)
        return "pbkdf2_sha256$\(iterations)$\(Base64URL.encode(salt))$\(Base64URL.encode(derived))"
    }

    func verify(_ password: String, against stored: String) -> Bool {
        let parts = stored.split(separator: "$")
        guard parts.count == 4, parts[0] == "pbkdf2_sha256", let rounds = Int(parts[1]), rounds > 0,
            let salt = Base64URL.decode(parts[2]), let expected = Base64URL.decode(parts[3]),
            let derived = try? derive(password, salt: salt, iterations: rounds)
        else { return false }
        return Self.constantTimeEquals(derived, expected)
    }

    private func derive(_ password: String, salt: [UInt8], iterations: Int) throws -> [UInt8] {
        let key = try KDF.Insecure.PBKDF2.deriveKey(
            from: Array(password.utf8),
            salt: salt,
            using: .sha256,
            outputByteCount: 32,
            unsafeUncheckedRounds: iterations
        )
        return key.withUnsafeBytes { Array($0) }
    }

    private static func constantTimeEquals(_ lhs: [UInt8], _ rhs: [UInt8]) -> Bool {
        guard lhs.count == rhs.count else { return false }
        var difference: UInt8 = 0
        for index in lhs.indices {
            difference |= lhs[index] ^ rhs[index]
        }
        return difference == 0
    }
}

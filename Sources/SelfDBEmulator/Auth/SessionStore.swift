import Crypto
import EmulatorSupport
import Foundation
import GRDB

/// Refresh-token sessions: rotation on every refresh and reuse detection.
///
/// Only a SHA-256 of each refresh token is stored, so the database alone cannot be used
/// to hijack a session.
struct SessionStore: Sendable {
    let services: EmulatorServices

    private static func digest(_ token: String) -> String {
        SHA256.hash(data: Array(token.utf8)).map { String(format: "%02x", $0) }.joined()
    }

    private static func randomToken() -> String {
        var generator = SystemRandomNumberGenerator()
        return Base64URL.encode((0..<32).map { _ in UInt8.random(in: .min ... .max, using: &generator) })
    }

    /// Mints an access token and a new refresh-token session inside `db`'s transaction.
    func issue(for user: UserRecord, in db: Database) throws -> JSONValue {
        let now = Date()
        let lifetime = services.controls.accessTokenLifetime
        // Rounded up so a token never expires sooner than the configured lifetime.
        let expiresAt = Int64((now.timeIntervalSince1970 + lifetime).rounded(.up))
        let accessToken = services.jwt.sign(.init(subject: user.id, role: user.role, expiresAt: expiresAt))
        let refreshToken = Self.randomToken()
        try db.execute(
            sql: "INSERT INTO _selfdb_refresh_tokens (token_hash, user_id, revoked, expires_at, created_at) VALUES (?, ?, 0, ?, ?)",
            arguments: [
                Self.digest(refreshToken), user.id,
                now.timeIntervalSince1970 + services.configuration.refreshTokenLifetime, Timestamp.string(from: now),
            ]
        )
        return [
            "access_token": .string(accessToken),
            "refresh_token": .string(refreshToken),
            "token_type": "bearer",
            "expires_in": .int(Int64(lifetime.rounded(.up))),
        ]
    }

    /// Rotates a refresh token. A token that was already rotated or revoked is a sign of
    /// theft: every session of its user is revoked and the call fails.
    func refresh(_ token: String) async throws -> JSONValue {
        let hash = Self.digest(token)
        let outcome: Result<JSONValue, APIError> = try await services.database.pool.write { db in
            guard
                let row = try Row.fetchOne(
                    db,
                    sql: "SELECT user_id, revoked, expires_at FROM _selfdb_refresh_tokens WHERE token_hash = ?",
                    arguments: [hash]
                )
            else { return .failure(.unauthorized("Invalid refresh token")) }
            let userID: String = row["user_id"]
            if row["revoked"] as Bool {
                try db.execute(
                    sql: "UPDATE _selfdb_refresh_tokens SET revoked = 1 WHERE user_id = ?",
                    arguments: [userID]
                )
                return .failure(.unauthorized("Refresh token reuse detected. All sessions have been revoked."))
            }
            try db.execute(sql: "UPDATE _selfdb_refresh_tokens SET revoked = 1 WHERE token_hash = ?", arguments: [hash])
            guard (row["expires_at"] as Double) > Date().timeIntervalSince1970 else {
                return .failure(.unauthorized("Refresh token expired"))
            }
            guard let user = try UserRecord.find(id: userID, in: db) else {
                return .failure(.unauthorized("Invalid refresh token"))
            }
            guard user.isActive else { return .failure(.badRequest("Inactive user")) }
            return .success(try issue(for: user, in: db))
        }
        return try outcome.get()
    }

    /// Revokes one session of `user` (if the token is theirs), or all of them.
    func logout(user: UserRecord, refreshToken: String?) async throws {
        try await services.database.pool.write { db in
            if let refreshToken {
                try db.execute(
                    sql: "UPDATE _selfdb_refresh_tokens SET revoked = 1 WHERE token_hash = ? AND user_id = ?",
                    arguments: [Self.digest(refreshToken), user.id]
                )
            } else {
                try db.execute(sql: "UPDATE _selfdb_refresh_tokens SET revoked = 1 WHERE user_id = ?", arguments: [user.id])
            }
        }
    }
}

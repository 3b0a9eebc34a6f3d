import Crypto
import EmulatorSupport
import Foundation
import GRDB

/// Refresh-token sessions: rotation on every refresh, and SelfDB's reuse detection.
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

    /// Rotates a refresh token as SelfDB v0.0.5 does (`refresh_access_token` and
    /// `rotate_refresh_token` in its `security.py`): the token is first validated on its own (a
    /// revoked, expired or unknown token is 401 "Invalid or expired refresh token", and nothing
    /// else happens), then revoked if it still is not. A token revoked in between, by a refresh
    /// that raced this one with the same token, is taken for theft: every session of the user is
    /// revoked, 401 "Token reuse detected. All sessions revoked." So a later reuse costs only
    /// that call, and a reuse that races the rotation costs the user every session.
    func refresh(_ token: String) async throws -> JSONValue {
        let hash = Self.digest(token)
        let now = Date().timeIntervalSince1970
        let validated: Result<UserRecord, APIError> = try await services.database.pool.read { db in
            guard
                let row = try Row.fetchOne(
                    db,
                    sql: "SELECT user_id, revoked, expires_at FROM _selfdb_refresh_tokens WHERE token_hash = ?",
                    arguments: [hash]
                ),
                !(row["revoked"] as Bool), (row["expires_at"] as Double) > now
            else { return .failure(.unauthorized("Invalid or expired refresh token")) }
            guard let user = try UserRecord.find(id: row["user_id"], in: db) else { return .failure(.unauthorized("User not found")) }
            guard user.isActive else { return .failure(.badRequest("Inactive user")) }
            return .success(user)
        }
        let user = try validated.get()
        // SelfDB validates and rotates in separate statements, a database round trip apart; a
        // test widens that gap so two refreshes with one token race as they can in production.
        let gap = services.controls.refreshRotationDelay
        if gap > .zero { try? await Task.sleep(for: gap) }
        let rotated: Result<JSONValue, APIError> = try await services.database.pool.write { db in
            try db.execute(sql: "UPDATE _selfdb_refresh_tokens SET revoked = 1 WHERE token_hash = ? AND revoked = 0", arguments: [hash])
            guard db.changesCount == 1 else {
                try db.execute(sql: "UPDATE _selfdb_refresh_tokens SET revoked = 1 WHERE user_id = ?", arguments: [user.id])
                return .failure(.unauthorized("Token reuse detected. All sessions revoked."))
            }
            return .success(try issue(for: user, in: db))
        }
        return try rotated.get()
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

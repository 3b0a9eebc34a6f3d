import Foundation

/// Resolves the user behind a bearer token, for endpoints where auth is required and
/// for those where it is optional (a bad or expired token is then simply anonymous).
struct Authenticator: Sendable {
    let services: EmulatorServices

    /// The authenticated, active user; 401 without or with a bad token, 400 if inactive.
    func requireUser(_ request: APIRequest) async throws -> UserRecord {
        guard let token = request.bearerToken else { throw APIError.notAuthenticated }
        guard let user = try await user(forToken: token) else { throw APIError.invalidCredentials }
        guard user.isActive else { throw APIError.badRequest("Inactive user") }
        return user
    }

    /// The user, or nil for anonymous requests and any token that does not check out.
    func optionalUser(_ request: APIRequest) async throws -> UserRecord? {
        guard let token = request.bearerToken, let user = try await user(forToken: token), user.isActive else {
            return nil
        }
        return user
    }

    /// Realtime sockets carry the token in the URL.
    func user(forToken token: String) async throws -> UserRecord? {
        guard let claims = services.jwt.verify(token, now: Date()) else { return nil }
        return try await services.database.pool.read { db in
            try UserRecord.find(id: claims.subject, in: db)
        }
    }

    /// 403 unless the user is an ADMIN.
    func requireAdmin(_ request: APIRequest) async throws -> UserRecord {
        let user = try await requireUser(request)
        guard user.isAdmin else { throw APIError.forbidden("Not enough permissions") }
        return user
    }
}

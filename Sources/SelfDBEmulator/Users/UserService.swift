import EmulatorSupport
import GRDB

/// User operations shared by the routes and by start-up.
struct UserService: Sendable {
    let services: EmulatorServices

    /// Creates the configured admin, or promotes and reactivates an existing account with
    /// that email (its password is left alone so a restart never surprises anyone).
    func ensureAdmin(_ admin: SelfDBEmulator.AdminAccount) async throws {
        let existing = try await services.database.pool.read { db in try UserRecord.find(email: admin.email, in: db) }
        if var user = existing {
            guard !user.isAdmin || !user.isActive else { return }
            user.role = "ADMIN"
            user.isActive = true
            user.updatedAt = Timestamp.now()
            try await services.database.pool.write { [user] db in try user.update(db) }
            return
        }
        _ = try await create(
            email: admin.email,
            password: admin.password,
            firstName: admin.firstName,
            lastName: admin.lastName,
            role: "ADMIN"
        )
    }

    /// Inserts a user, or returns the existing one with the same email (SelfDB's
    /// idempotent create). `created` tells which happened.
    func create(email: String, password: String, firstName: String, lastName: String, role: String) async throws
        -> (user: UserRecord, created: Bool)
    {
        if let existing = try await services.database.pool.read({ db in try UserRecord.find(email: email, in: db) }) {
            return (existing, false)
        }
        let now = Timestamp.now()
        let user = UserRecord(
            id: UUIDText.random(),
            email: email,
            passwordHash: try services.passwords.hash(password),
            firstName: firstName,
            lastName: lastName,
            role: role,
            isActive: true,
            createdAt: now,
            updatedAt: now
        )
        let outcome: (UserRecord, Bool) = try await services.database.pool.write { db in
            // Another request may have registered the email while we were hashing.
            if let existing = try UserRecord.find(email: email, in: db) {
                return (existing, false)
            }
            try user.insert(db)
            return (user, true)
        }
        if outcome.1 {
            services.realtime.broadcast(table: "users", change: .insert, new: outcome.0.realtimeJSON, old: nil)
        }
        return outcome
    }
}

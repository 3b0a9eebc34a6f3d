import EmulatorSupport
import GRDB

/// A row of `_selfdb_users`.
struct UserRecord: Sendable, Equatable {
    var id: String
    var email: String
    var passwordHash: String
    var firstName: String
    var lastName: String
    var role: String
    var isActive: Bool
    var createdAt: String
    var updatedAt: String

    var isAdmin: Bool { role == "ADMIN" }

    init(row: Row) {
        id = row["id"]
        email = row["email"]
        passwordHash = row["password_hash"]
        firstName = row["first_name"]
        lastName = row["last_name"]
        role = row["role"]
        isActive = row["is_active"]
        createdAt = row["created_at"]
        updatedAt = row["updated_at"]
    }

    init(
        id: String,
        email: String,
        passwordHash: String,
        firstName: String,
        lastName: String,
        role: String,
        isActive: Bool,
        createdAt: String,
        updatedAt: String
    ) {
        self.id = id
        self.email = email
        self.passwordHash = passwordHash
        self.firstName = firstName
        self.lastName = lastName
        self.role = role
        self.isActive = isActive
        self.createdAt = createdAt
        self.updatedAt = updatedAt
    }

    /// UserRead: camelCase names except `created_at`, exactly as SelfDB sends it.
    var json: JSONValue {
        .object(
            JSONObject([
                ("id", .string(id)),
                ("email", .string(email)),
                ("firstName", .string(firstName)),
                ("lastName", .string(lastName)),
                ("role", .string(role)),
                ("isActive", .bool(isActive)),
                ("created_at", .string(createdAt)),
            ])
        )
    }

    /// The row as the database trigger of the real server would broadcast it, minus the
    /// password hash the real server leaks.
    var realtimeJSON: JSONValue {
        .object(
            JSONObject([
                ("id", .string(id)),
                ("email", .string(email)),
                ("first_name", .string(firstName)),
                ("last_name", .string(lastName)),
                ("role", .string(role)),
                ("is_active", .bool(isActive)),
                ("created_at", .string(Timestamp.realtime(createdAt))),
                ("updated_at", .string(Timestamp.realtime(updatedAt))),
            ])
        )
    }

    static func find(id: String, in db: Database) throws -> UserRecord? {
        try Row.fetchOne(db, sql: "SELECT * FROM _selfdb_users WHERE id = ?", arguments: [id]).map(UserRecord.init)
    }

    static func find(email: String, in db: Database) throws -> UserRecord? {
        try Row.fetchOne(db, sql: "SELECT * FROM _selfdb_users WHERE email = ?", arguments: [email])
            .map(UserRecord.init)
    }

    func insert(_ db: Database) throws {
        try db.execute(
            sql: """
                INSERT INTO _selfdb_users (id, email, password_hash, first_name, last_name, role, is_active, created_at, updated_at)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
                """,
            arguments: [id, email, passwordHash, firstName, lastName, role, isActive, createdAt, updatedAt]
        )
    }

    func update(_ db: Database) throws {
        try db.execute(
            sql: """
                UPDATE _selfdb_users SET email = ?, password_hash = ?, first_name = ?, last_name = ?, role = ?,
                is_active = ?, updated_at = ? WHERE id = ?
                """,
            arguments: [email, passwordHash, firstName, lastName, role, isActive, updatedAt, id]
        )
    }
}

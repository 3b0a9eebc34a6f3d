import EmulatorSupport
import GRDB

/// Registered sync clients, one per (user, client_id).
enum ClientRegistry {
    struct Client: Sendable {
        var id: String
        var lastSyncAt: String?
        var lastPullAt: String?
        var lastPullSequence: Int64?
    }

    struct Registration: Sendable {
        var clientID: String
        var clientName: String?
        var platform: String
        var appVersion: String
    }

    /// Inserts or updates the client; its server id and checkpoint survive re-registration.
    static func register(_ registration: Registration, user: String, in db: Database) throws -> Client {
        let now = SyncTimestamp.now().text
        try db.execute(
            sql: """
                INSERT INTO _synchro_clients (user_id, client_id, id, client_name, platform, app_version, created_at)
                VALUES (?, ?, ?, ?, ?, ?, ?)
                ON CONFLICT(user_id, client_id) DO UPDATE SET
                    client_name = excluded.client_name, platform = excluded.platform, app_version = excluded.app_version
                """,
            arguments: [
                user, registration.clientID, UUIDText.random(), registration.clientName, registration.platform,
                registration.appVersion, now,
            ]
        )
        guard let client = try find(user: user, clientID: registration.clientID, in: db) else {
            throw DatabaseError(message: "registered client vanished")
        }
        return client
    }

    static func find(user: String, clientID: String, in db: Database) throws -> Client? {
        try Row.fetchOne(
            db,
            sql: "SELECT id, last_sync_at, last_pull_at, last_pull_seq FROM _synchro_clients WHERE user_id = ? AND client_id = ?",
            arguments: [user, clientID]
        ).map { row in
            Client(id: row["id"], lastSyncAt: row["last_sync_at"], lastPullAt: row["last_pull_at"], lastPullSequence: row["last_pull_seq"])
        }
    }

    /// After a pull page or a completed snapshot: the client has seen the log up to
    /// `checkpoint` (never moved backwards).
    static func recordPull(user: String, clientID: String, checkpoint: Int64, in db: Database) throws {
        let now = SyncTimestamp.now().text
        try db.execute(
            sql: """
                UPDATE _synchro_clients SET last_pull_at = ?, last_sync_at = ?, last_pull_seq = MAX(COALESCE(last_pull_seq, 0), ?)
                WHERE user_id = ? AND client_id = ?
                """,
            arguments: [now, now, checkpoint, user, clientID]
        )
    }

    /// A snapshot replaces the client's state, so its checkpoint may go backwards (after a
    /// compaction the client is rebuilt from scratch).
    static func recordSnapshot(user: String, clientID: String, checkpoint: Int64, in db: Database) throws {
        let now = SyncTimestamp.now().text
        try db.execute(
            sql: "UPDATE _synchro_clients SET last_pull_at = ?, last_sync_at = ?, last_pull_seq = ? WHERE user_id = ? AND client_id = ?",
            arguments: [now, now, checkpoint, user, clientID]
        )
    }

    static func recordPush(user: String, clientID: String, in db: Database) throws {
        try db.execute(
            sql: "UPDATE _synchro_clients SET last_sync_at = ? WHERE user_id = ? AND client_id = ?",
            arguments: [SyncTimestamp.now().text, user, clientID]
        )
    }
}

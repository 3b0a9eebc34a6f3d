import EmulatorSupport
import Foundation
import GRDB

/// Protocol 2's own state in the sync server's SQLite file, beside the rows protocol 1 also
/// serves: the stream generation and cursor secret, the clients with their scope assignment,
/// the registered shared scopes, each row's scope memberships with its checksum, and the
/// per-scope change log (§4.10).
enum ProtocolTwoStore {
    /// Creates protocol 2's tables when missing (the rows' tables are the shared store's).
    static func migrate(_ pool: DatabasePool) throws {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("protocol-2") { db in
            try db.execute(
                sql: """
                    CREATE TABLE _synchro2_runtime (
                        id INTEGER PRIMARY KEY CHECK (id = 1),
                        stream_generation TEXT NOT NULL,
                        cursor_secret TEXT NOT NULL
                    );
                    CREATE TABLE _synchro2_schema_versions (
                        version INTEGER PRIMARY KEY NOT NULL,
                        hash TEXT NOT NULL UNIQUE
                    );
                    CREATE TABLE _synchro2_clients (
                        user_id TEXT NOT NULL,
                        client_id TEXT NOT NULL,
                        platform TEXT NOT NULL,
                        app_version TEXT NOT NULL,
                        scopes TEXT NOT NULL,
                        scope_set_version INTEGER NOT NULL,
                        active INTEGER NOT NULL,
                        last_sync_at TEXT,
                        PRIMARY KEY (user_id, client_id)
                    );
                    CREATE TABLE _synchro2_memberships (
                        table_name TEXT NOT NULL,
                        record_id TEXT NOT NULL,
                        scope TEXT NOT NULL,
                        checksum INTEGER NOT NULL,
                        PRIMARY KEY (scope, table_name, record_id)
                    );
                    CREATE INDEX _synchro2_memberships_record ON _synchro2_memberships(table_name, record_id);
                    CREATE TABLE _synchro2_log (
                        seq INTEGER PRIMARY KEY AUTOINCREMENT,
                        scope TEXT NOT NULL,
                        table_name TEXT NOT NULL,
                        record_id TEXT NOT NULL,
                        op TEXT NOT NULL
                    );
                    CREATE INDEX _synchro2_log_scope ON _synchro2_log(scope, seq);
                    """
            )
            // Random per database, as `CREATE EXTENSION` makes them: cursors from another
            // data folder are stale here.
            let secret = (0..<32).map { _ in String(format: "%02x", UInt8.random(in: 0...255)) }.joined()
            try db.execute(
                sql: "INSERT INTO _synchro2_runtime (id, stream_generation, cursor_secret) VALUES (1, ?, ?)",
                arguments: [UUID().uuidString.lowercased(), secret]
            )
        }
        // The shared scopes registered so far, so that a spec that adds or drops one changes
        // the clients' assignments as registering does on the real server (§4.2).
        migrator.registerMigration("protocol-2-shared-scopes") { db in
            try db.execute(sql: "CREATE TABLE _synchro2_shared_scopes (scope_id TEXT PRIMARY KEY NOT NULL)")
        }
        // Memberships keyed by their primary key alone: a rowid table wrote three B-trees per
        // membership (rows, key, record index), and every pushed row adds one.
        migrator.registerMigration("protocol-2-memberships-without-rowid") { db in
            try db.execute(
                sql: """
                    CREATE TABLE _synchro2_memberships_keyed (
                        table_name TEXT NOT NULL,
                        record_id TEXT NOT NULL,
                        scope TEXT NOT NULL,
                        checksum INTEGER NOT NULL,
                        PRIMARY KEY (scope, table_name, record_id)
                    ) WITHOUT ROWID;
                    INSERT INTO _synchro2_memberships_keyed (table_name, record_id, scope, checksum)
                        SELECT table_name, record_id, scope, checksum FROM _synchro2_memberships;
                    DROP TABLE _synchro2_memberships;
                    ALTER TABLE _synchro2_memberships_keyed RENAME TO _synchro2_memberships;
                    CREATE INDEX _synchro2_memberships_record ON _synchro2_memberships(table_name, record_id);
                    """
            )
        }
        try migrator.migrate(pool)
    }

    /// The cursor issuer of this database.
    static func cursorTokens(in db: Database) throws -> ScopeCursorToken {
        guard let row = try Row.fetchOne(db, sql: "SELECT stream_generation, cursor_secret FROM _synchro2_runtime WHERE id = 1") else {
            throw DatabaseError(message: "protocol 2 runtime state is missing")
        }
        return ScopeCursorToken(streamGeneration: row["stream_generation"], secret: Array((row["cursor_secret"] as String).utf8))
    }

    /// The version of the manifest with `hash`: the one it had when seen before, else one
    /// above the highest (§4.7: reverting to an earlier manifest keeps its old version). A
    /// server without synced tables has (0, "").
    static func schemaVersion(for hash: String, in db: Database) throws -> Int64 {
        guard !hash.isEmpty else { return 0 }
        if let known = try Int64.fetchOne(db, sql: "SELECT version FROM _synchro2_schema_versions WHERE hash = ?", arguments: [hash]) {
            return known
        }
        let next = (try Int64.fetchOne(db, sql: "SELECT MAX(version) FROM _synchro2_schema_versions") ?? 0) + 1
        try db.execute(sql: "INSERT INTO _synchro2_schema_versions (version, hash) VALUES (?, ?)", arguments: [next, hash])
        return next
    }

    // MARK: Clients

    /// A registered client.
    struct Client: Sendable {
        var scopes: [String]
        var scopeSetVersion: Int64
        var active: Bool
    }

    static func client(user: String, clientID: String, in db: Database) throws -> Client? {
        guard
            let row = try Row.fetchOne(
                db,
                sql: "SELECT scopes, scope_set_version, active FROM _synchro2_clients WHERE user_id = ? AND client_id = ?",
                arguments: [user, clientID]
            )
        else { return nil }
        let scopes = (try? JSONParser.parse(row["scopes"] as String))?.arrayValue?.compactMap(\.stringValue) ?? []
        return Client(scopes: scopes, scopeSetVersion: row["scope_set_version"], active: row["active"])
    }

    /// The active client, or the 400 the real server answers on pull, push and rebuild.
    static func activeClient(user: String, clientID: String, in db: Database) throws -> Client {
        guard let client = try client(user: user, clientID: clientID, in: db), client.active else {
            throw SyncError.invalidRequest("client is not registered")
        }
        return client
    }

    /// Upserts the client with `scopes`, re-activating it; the scope set version rises when
    /// the list changed (1 for a new client). Returns the stored client.
    static func register(user: String, clientID: String, platform: String, appVersion: String, scopes: [String], in db: Database) throws -> Client {
        let existing = try client(user: user, clientID: clientID, in: db)
        let version: Int64
        switch existing {
        case nil: version = 1
        case let existing? where existing.scopes != scopes: version = existing.scopeSetVersion + 1
        case let existing?: version = existing.scopeSetVersion
        }
        let list = JSONWriter.string(.array(scopes.map(JSONValue.string)))
        try db.execute(
            sql: """
                INSERT INTO _synchro2_clients (user_id, client_id, platform, app_version, scopes, scope_set_version, active)
                VALUES (?, ?, ?, ?, ?, ?, 1)
                ON CONFLICT(user_id, client_id) DO UPDATE SET platform = excluded.platform, app_version = excluded.app_version,
                    scopes = excluded.scopes, scope_set_version = excluded.scope_set_version, active = 1
                """,
            arguments: [user, clientID, platform, appVersion, list, version]
        )
        return Client(scopes: scopes, scopeSetVersion: version, active: true)
    }

    /// Marks a completed rebuild (what compaction reads).
    static func recordSync(user: String, clientID: String, in db: Database) throws {
        try db.execute(
            sql: "UPDATE _synchro2_clients SET last_sync_at = ? WHERE user_id = ? AND client_id = ?",
            arguments: [SyncTimestamp.now().text, user, clientID]
        )
    }

    /// Deactivates every client: their next pull, push or rebuild is 400 "client is not
    /// registered" until they connect again (what the real server's compaction does to stale
    /// clients).
    static func deactivateClients(in db: Database) throws {
        try db.execute(sql: "UPDATE _synchro2_clients SET active = 0")
    }

    // MARK: Change log

    /// The highest sequence number handed out (0 for an empty log).
    static func maximumSequence(in db: Database) throws -> Int64 {
        try Int64.fetchOne(db, sql: "SELECT seq FROM sqlite_sequence WHERE name = '_synchro2_log'") ?? 0
    }

    /// The smallest sequence number still in the log; nil when it is empty.
    static func minimumSequence(in db: Database) throws -> Int64? {
        try Int64.fetchOne(db, sql: "SELECT MIN(seq) FROM _synchro2_log")
    }

    /// Deletes every entry up to `sequence`: cursors below it become stale.
    static func compact(through sequence: Int64, in db: Database) throws {
        try db.execute(sql: "DELETE FROM _synchro2_log WHERE seq <= ?", arguments: [sequence])
    }
}

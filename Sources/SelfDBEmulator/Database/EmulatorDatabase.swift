import Foundation
import GRDB

/// The SQLite file holding every system record and every user table.
///
/// System tables are prefixed `_selfdb_`: user table names must start with a lowercase
/// letter, so they can never collide with (or be used to reach) the system tables.
struct EmulatorDatabase: Sendable {
    let pool: DatabasePool

    init(path: String) throws {
        var configuration = Configuration()
        configuration.foreignKeysEnabled = true
        configuration.busyMode = .timeout(10)
        pool = try DatabasePool(path: path, configuration: configuration)
        try Self.migrator.migrate(pool)
    }

    private static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1") { db in
            try db.execute(
                sql: """
                    CREATE TABLE _selfdb_settings (key TEXT PRIMARY KEY NOT NULL, value BLOB NOT NULL);
                    CREATE TABLE _selfdb_users (
                        id TEXT PRIMARY KEY NOT NULL,
                        email TEXT NOT NULL UNIQUE COLLATE NOCASE,
                        password_hash TEXT NOT NULL,
                        first_name TEXT NOT NULL,
                        last_name TEXT NOT NULL,
                        role TEXT NOT NULL,
                        is_active INTEGER NOT NULL,
                        created_at TEXT NOT NULL,
                        updated_at TEXT NOT NULL
                    );
                    CREATE TABLE _selfdb_refresh_tokens (
                        token_hash TEXT PRIMARY KEY NOT NULL,
                        user_id TEXT NOT NULL REFERENCES _selfdb_users(id) ON DELETE CASCADE,
                        revoked INTEGER NOT NULL DEFAULT 0,
                        expires_at REAL NOT NULL,
                        created_at TEXT NOT NULL
                    );
                    CREATE INDEX _selfdb_refresh_tokens_user ON _selfdb_refresh_tokens(user_id);
                    CREATE TABLE _selfdb_tables (
                        id TEXT PRIMARY KEY NOT NULL,
                        name TEXT NOT NULL UNIQUE,
                        table_schema TEXT NOT NULL,
                        columns TEXT NOT NULL,
                        public INTEGER NOT NULL,
                        description TEXT,
                        metadata TEXT NOT NULL,
                        owner_id TEXT NOT NULL,
                        realtime_enabled INTEGER NOT NULL DEFAULT 0,
                        created_at TEXT NOT NULL,
                        updated_at TEXT NOT NULL
                    );
                    CREATE TABLE _selfdb_buckets (
                        id TEXT PRIMARY KEY NOT NULL,
                        name TEXT NOT NULL UNIQUE,
                        public INTEGER NOT NULL,
                        description TEXT,
                        metadata TEXT NOT NULL,
                        owner_id TEXT NOT NULL,
                        created_at TEXT NOT NULL,
                        updated_at TEXT NOT NULL
                    );
                    CREATE TABLE _selfdb_files (
                        id TEXT PRIMARY KEY NOT NULL,
                        bucket_id TEXT NOT NULL REFERENCES _selfdb_buckets(id) ON DELETE CASCADE,
                        name TEXT NOT NULL,
                        path TEXT NOT NULL,
                        size INTEGER NOT NULL,
                        mime_type TEXT NOT NULL,
                        owner_id TEXT,
                        metadata TEXT NOT NULL,
                        checksum_sha256 TEXT NOT NULL,
                        blob_key TEXT NOT NULL,
                        created_at TEXT NOT NULL,
                        updated_at TEXT NOT NULL,
                        UNIQUE (bucket_id, path)
                    );
                    """
            )
        }
        return migrator
    }

    /// A secret that survives restarts, created on first use (the JWT signing key).
    func persistentSecret(named name: String) throws -> [UInt8] {
        try pool.write { db in
            if let existing = try Data.fetchOne(db, sql: "SELECT value FROM _selfdb_settings WHERE key = ?", arguments: [name]) {
                return Array(existing)
            }
            var generator = SystemRandomNumberGenerator()
            let secret = (0..<32).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
            try db.execute(
                sql: "INSERT INTO _selfdb_settings (key, value) VALUES (?, ?)",
                arguments: [name, Data(secret)]
            )
            return secret
        }
    }
}

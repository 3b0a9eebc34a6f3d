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
        migrator.registerMigration("v2-admin-services") { db in
            // SelfDB's functions, webhooks and SQL tables (07_functions_webhooks.sql,
            // 01_create_tables.sql), with their cascades: a user's functions go with the user,
            // a function's webhooks, runs and logs with the function.
            try db.execute(
                sql: """
                    CREATE TABLE _selfdb_functions (
                        id TEXT PRIMARY KEY NOT NULL,
                        name TEXT NOT NULL UNIQUE,
                        description TEXT,
                        code TEXT NOT NULL,
                        owner_id TEXT NOT NULL REFERENCES _selfdb_users(id) ON DELETE CASCADE,
                        is_active INTEGER NOT NULL DEFAULT 1,
                        deployment_status TEXT NOT NULL DEFAULT 'pending',
                        deployment_error TEXT,
                        version INTEGER NOT NULL DEFAULT 1,
                        timeout_seconds INTEGER NOT NULL DEFAULT 30,
                        env_vars TEXT NOT NULL DEFAULT '{}',
                        execution_count INTEGER NOT NULL DEFAULT 0,
                        execution_success_count INTEGER NOT NULL DEFAULT 0,
                        execution_error_count INTEGER NOT NULL DEFAULT 0,
                        last_executed_at TEXT,
                        avg_execution_time_ms INTEGER,
                        last_deployed_at TEXT,
                        created_at TEXT NOT NULL,
                        updated_at TEXT NOT NULL
                    );
                    CREATE TABLE _selfdb_function_executions (
                        id TEXT PRIMARY KEY NOT NULL,
                        function_id TEXT NOT NULL REFERENCES _selfdb_functions(id) ON DELETE CASCADE,
                        user_id TEXT NOT NULL REFERENCES _selfdb_users(id) ON DELETE CASCADE,
                        trigger_type TEXT NOT NULL,
                        status TEXT NOT NULL,
                        started_at TEXT NOT NULL,
                        completed_at TEXT,
                        duration_ms INTEGER,
                        result TEXT,
                        error_message TEXT,
                        created_at TEXT NOT NULL
                    );
                    CREATE INDEX _selfdb_function_executions_function ON _selfdb_function_executions(function_id, started_at);
                    CREATE TABLE _selfdb_function_logs (
                        id TEXT PRIMARY KEY NOT NULL,
                        execution_id TEXT NOT NULL REFERENCES _selfdb_function_executions(id) ON DELETE CASCADE,
                        function_id TEXT NOT NULL REFERENCES _selfdb_functions(id) ON DELETE CASCADE,
                        log_level TEXT NOT NULL,
                        message TEXT NOT NULL,
                        timestamp TEXT NOT NULL
                    );
                    CREATE INDEX _selfdb_function_logs_function ON _selfdb_function_logs(function_id, timestamp);
                    CREATE TABLE _selfdb_webhooks (
                        id TEXT PRIMARY KEY NOT NULL,
                        function_id TEXT NOT NULL REFERENCES _selfdb_functions(id) ON DELETE CASCADE,
                        owner_id TEXT NOT NULL REFERENCES _selfdb_users(id) ON DELETE CASCADE,
                        name TEXT NOT NULL,
                        description TEXT,
                        provider TEXT,
                        provider_event_type TEXT,
                        webhook_token TEXT NOT NULL UNIQUE,
                        secret_key TEXT NOT NULL,
                        is_active INTEGER NOT NULL DEFAULT 1,
                        rate_limit_per_minute INTEGER NOT NULL DEFAULT 100,
                        retry_enabled INTEGER NOT NULL DEFAULT 1,
                        retry_attempts INTEGER NOT NULL DEFAULT 3,
                        retry_delay_seconds INTEGER NOT NULL DEFAULT 60,
                        created_at TEXT NOT NULL,
                        updated_at TEXT NOT NULL
                    );
                    CREATE TABLE _selfdb_webhook_deliveries (
                        id TEXT PRIMARY KEY NOT NULL,
                        webhook_id TEXT NOT NULL REFERENCES _selfdb_webhooks(id) ON DELETE CASCADE,
                        function_id TEXT NOT NULL REFERENCES _selfdb_functions(id) ON DELETE CASCADE,
                        request_body TEXT,
                        status TEXT NOT NULL,
                        delivery_attempt INTEGER NOT NULL DEFAULT 1,
                        execution_result TEXT,
                        error_message TEXT,
                        response_status_code INTEGER,
                        retry_count INTEGER NOT NULL DEFAULT 0,
                        processing_completed_at TEXT,
                        created_at TEXT NOT NULL,
                        received_at TEXT,
                        updated_at TEXT NOT NULL
                    );
                    CREATE INDEX _selfdb_webhook_deliveries_webhook ON _selfdb_webhook_deliveries(webhook_id, created_at);
                    CREATE TABLE _selfdb_sql_history (
                        id TEXT PRIMARY KEY NOT NULL,
                        query TEXT NOT NULL,
                        is_read_only INTEGER NOT NULL,
                        execution_time REAL NOT NULL,
                        row_count INTEGER,
                        error TEXT,
                        user_id TEXT NOT NULL REFERENCES _selfdb_users(id) ON DELETE CASCADE,
                        executed_at TEXT NOT NULL
                    );
                    CREATE INDEX _selfdb_sql_history_user ON _selfdb_sql_history(user_id, executed_at);
                    CREATE TABLE _selfdb_sql_snippets (
                        id TEXT PRIMARY KEY NOT NULL,
                        name TEXT NOT NULL,
                        sql_code TEXT NOT NULL,
                        description TEXT,
                        is_shared INTEGER NOT NULL DEFAULT 0,
                        created_by TEXT NOT NULL REFERENCES _selfdb_users(id) ON DELETE CASCADE,
                        created_at TEXT NOT NULL
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

import Foundation
import GRDB
import SelfDBRuntime

/// A local change the server refused for good (or lost to the server's version), as kept in
/// `_synchro_rejected_mutations` until the app clears it.
///
/// The table has the official Synchro 0.3 client's name and columns, so tools and queries
/// written for that client read it unchanged:
///
/// ```swift
/// let rows = try client.query("SELECT table_name, record_id, code, message FROM _synchro_rejected_mutations")
/// try client.execute("DELETE FROM _synchro_rejected_mutations")
/// ```
public struct MutationRejection: Sendable, Equatable {
    /// The mutation's id, `<table>:<record id>:<create|update|delete>:<client time>`: the same
    /// change rejected again replaces its earlier entry.
    public var mutationID: String
    /// The synced table.
    public var table: String
    /// The record's primary key.
    public var recordID: String
    /// `conflict` (the server's version won and replaced the local row) or `rejected_terminal`.
    public var status: String
    /// The server's reason: `version_conflict`, `policy_rejected`, `validation_failed`,
    /// `table_not_synced`, protocol 1's reason codes, or `batch_rolled_back` for a change the
    /// server failed on every time it was sent, alone (see `Docs/Synchro.md`).
    public var code: String
    /// The server's message, when it gave one.
    public var message: String?
    /// The row as the server holds it, when it sent one.
    public var serverRow: [String: JSONValue]?
    /// The server's version of the row (its `updated_at`), when it sent one.
    public var serverVersion: String?

    /// Creates a rejection.
    public init(
        mutationID: String,
        table: String,
        recordID: String,
        status: String,
        code: String,
        message: String? = nil,
        serverRow: [String: JSONValue]? = nil,
        serverVersion: String? = nil
    ) {
        self.mutationID = mutationID
        self.table = table
        self.recordID = recordID
        self.status = status
        self.code = code
        self.message = message
        self.serverRow = serverRow
        self.serverVersion = serverVersion
    }
}

/// Reads and writes `_synchro_rejected_mutations`.
enum RejectedMutations {
    static func install(in db: Database) throws {
        try db.execute(
            sql: """
                CREATE TABLE IF NOT EXISTS _synchro_rejected_mutations (
                    mutation_id TEXT PRIMARY KEY,
                    table_name TEXT NOT NULL,
                    record_id TEXT NOT NULL,
                    status TEXT NOT NULL,
                    code TEXT NOT NULL,
                    message TEXT,
                    server_row_json TEXT,
                    server_version TEXT,
                    created_at TEXT NOT NULL,
                    updated_at TEXT NOT NULL
                );
                CREATE INDEX IF NOT EXISTS idx_synchro_rejected_mutations_record
                    ON _synchro_rejected_mutations(table_name, record_id);
                -- A rejection the app clears may leave its row held by nothing: the next pull
                -- prunes again (see MetaStore.Key.unheldRowsPruned).
                CREATE TRIGGER IF NOT EXISTS _synchro_rejected_mutations_cleared
                    AFTER DELETE ON _synchro_rejected_mutations
                    BEGIN DELETE FROM _synchro_meta WHERE key = 'unheld_rows_pruned'; END;
                """
        )
    }

    /// The code of a change set aside because the server failed every push holding it, even
    /// alone (see `SyncEngine.pushIsolating`).
    static let batchRolledBack = "batch_rolled_back"
    /// The code of a write the server's policy refuses: a read-only table, or on `owner_only`
    /// tables a row of another user.
    static let policyRejected = "policy_rejected"

    /// Whether a terminal refusal is of the write itself, whatever its values: the server's
    /// policy (`policy_rejected`), or a row the server does not have for this user
    /// (`validation_failed` "record does not exist", which a real server with row-level
    /// security also answers for another user's row).
    static func isRefusalOfTheRow(_ result: PushResult) -> Bool {
        result.reasonCode == policyRejected || (result.reasonCode == "validation_failed" && result.message == "record does not exist")
    }

    /// The mutation id the official client gives a pending change, so the same change keeps
    /// one id across retries and one entry when rejected again.
    static func mutationID(of pending: PendingChange) -> String {
        "\(pending.table):\(pending.recordID):\(pending.operation):\(pending.clientUpdatedAt)"
    }

    /// Records `rejection`, replacing an earlier entry of the same mutation (its `created_at`
    /// kept).
    static func record(_ rejection: MutationRejection, in db: Database) throws {
        let serverRow = try rejection.serverRow.map { row in
            String(decoding: try JSONCoding.makeEncoder().encode(row), as: UTF8.self)
        }
        try db.cachedStatement(
            sql: """
                INSERT INTO _synchro_rejected_mutations
                    (mutation_id, table_name, record_id, status, code, message, server_row_json, server_version, created_at, updated_at)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, strftime('%Y-%m-%dT%H:%M:%fZ', 'now'), strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))
                ON CONFLICT (mutation_id) DO UPDATE SET
                    table_name = excluded.table_name, record_id = excluded.record_id, status = excluded.status,
                    code = excluded.code, message = excluded.message, server_row_json = excluded.server_row_json,
                    server_version = excluded.server_version, updated_at = excluded.updated_at
                """
        ).execute(
            arguments: [
                rejection.mutationID, rejection.table, rejection.recordID, rejection.status, rejection.code, rejection.message,
                serverRow, rejection.serverVersion,
            ]
        )
    }

    /// Every rejection kept, oldest first.
    static func all(in db: Database) throws -> [MutationRejection] {
        let decoder = JSONCoding.makeDecoder()
        return try Row.fetchAll(db, sql: "SELECT * FROM _synchro_rejected_mutations ORDER BY created_at, mutation_id").map { row in
            let json: String? = row["server_row_json"]
            return MutationRejection(
                mutationID: row["mutation_id"],
                table: row["table_name"],
                recordID: row["record_id"],
                status: row["status"],
                code: row["code"],
                message: row["message"],
                serverRow: try json.map { try decoder.decode([String: JSONValue].self, from: Data($0.utf8)) },
                serverVersion: row["server_version"]
            )
        }
    }
}

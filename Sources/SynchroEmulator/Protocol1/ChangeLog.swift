import GRDB

/// The change log: one entry per applied push, `(seq, table, record_id, op)` plus the
/// owner it was written for, so a pull reads only the caller's entries.
///
/// `seq` comes from AUTOINCREMENT, so a sequence number is never handed out twice, not
/// even after compaction emptied the log.
package enum ChangeLog {
    enum Operation: String, Sendable {
        case create, update, delete
    }

    struct Entry: Sendable {
        var sequence: Int64
        var table: String
        var recordID: String
        var operation: Operation
    }

    static func append(_ operation: Operation, table: String, recordID: String, owner: String, in db: Database) throws {
        try db.cachedStatement(sql: "INSERT INTO _synchro_changelog (table_name, record_id, op, owner_id, created_at) VALUES (?, ?, ?, ?, ?)")
            .execute(arguments: [table, recordID, operation.rawValue, owner, SyncTimestamp.now().text])
    }

    /// The owner's entries after `checkpoint`, oldest first, at most `limit`.
    static func entries(owner: String, after checkpoint: Int64, tables: [String]?, limit: Int, in db: Database) throws -> [Entry] {
        var sql = "SELECT seq, table_name, record_id, op FROM _synchro_changelog WHERE owner_id = ? AND seq > ?"
        var arguments: StatementArguments = [owner, checkpoint]
        if let tables {
            sql += " AND table_name IN (\(databaseQuestionMarks(count: tables.count)))"
            arguments += StatementArguments(tables)
        }
        sql += " ORDER BY seq LIMIT ?"
        arguments += [limit]
        return try Row.fetchAll(db, sql: sql, arguments: arguments).compactMap { row in
            guard let operation = Operation(rawValue: row["op"]) else { return nil }
            return Entry(sequence: row["seq"], table: row["table_name"], recordID: row["record_id"], operation: operation)
        }
    }

    /// The highest sequence number ever handed out (0 for a new log), which is also what a
    /// snapshot taken now has seen.
    package static func maximumSequence(in db: Database) throws -> Int64 {
        let logged = try Int64.fetchOne(db, sql: "SELECT MAX(seq) FROM _synchro_changelog") ?? 0
        return max(logged, try retentionFloor(in: db))
    }

    /// Entries up to and including this sequence number have been compacted away: a
    /// checkpoint below it can no longer be served incrementally.
    static func retentionFloor(in db: Database) throws -> Int64 {
        try Int64.fetchOne(db, sql: "SELECT value FROM _synchro_settings WHERE key = 'retention_floor'") ?? 0
    }

    /// Deletes the entries up to `sequence` (at most the current maximum) and raises the
    /// floor to it; returns the floor.
    package static func compact(through sequence: Int64, in db: Database) throws -> Int64 {
        let floor = max(try retentionFloor(in: db), min(sequence, try maximumSequence(in: db)))
        try db.execute(sql: "DELETE FROM _synchro_changelog WHERE seq <= ?", arguments: [floor])
        try db.execute(
            sql: "INSERT INTO _synchro_settings (key, value) VALUES ('retention_floor', ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value",
            arguments: [floor]
        )
        return floor
    }
}

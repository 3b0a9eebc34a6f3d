import GRDB

/// The app's writes to synced tables as the change triggers record them: one appended row per
/// write, in `_synchro_changes`, folded into the pending queue (`_synchro_pending`, one row per
/// record) before anything reads that queue.
///
/// Why two tables: coalescing at write time meant every app write also looked up and wrote a
/// row of a table indexed by record, at a random place in that index. An append to a table
/// with no index costs a fraction of that, and an app's writes are the path a user waits on.
/// The coalescing happens here instead, in one statement per fold, on the sync's own
/// transactions.
///
/// A fold gives exactly what the triggers coalescing each write as it happened would have given:
/// the log is folded in the order written, and in the same transaction as whatever then reads
/// or changes the queue. Every reader of the queue folds first: a transaction under the sync
/// lock (``MetaStore/withSyncLock(_:_:)``), reading a push round, marking a batch in flight,
/// and ``SynchroClient/pendingChangeCount()``. A record's seq moves at each write it folds, so a
/// change read before a fold (a batch read ahead) is told apart from the change after it.
enum ChangeLog {
    static let table = "_synchro_changes"

    /// The log's table; safe to run at every open.
    static let definition = """
        CREATE TABLE IF NOT EXISTS _synchro_changes (
            -- The rowid is the order written: no index to maintain.
            table_name TEXT NOT NULL,
            record_id TEXT NOT NULL,
            operation TEXT NOT NULL,
            base_updated_at TEXT,
            -- When it was written, as a Julian day: formatting the time as text in the
            -- trigger was a third of what tracking cost a write. A double holds the day to
            -- well under a millisecond, and 'now' has milliseconds, so the fold's text is exact.
            written_at REAL NOT NULL
        );
        """

    /// The length at which a write through the client folds the log in its own transaction
    /// (``foldIfLong(in:)``): without a sync running (never started, signed out, stopped),
    /// nothing else folds, and a counter updated a million times offline would be a million
    /// rows instead of one. At this length a fold takes a fraction of a second.
    static let longLog: Int64 = 50_000

    /// Folds the log when it has reached ``longLog`` writes; costs one lookup otherwise.
    static func foldIfLong(in db: Database) throws {
        // The last rowid is the log's length: a fold empties it and rowids start again at 1.
        let last = try Int64.fetchOne(try db.cachedStatement(sql: "SELECT MAX(rowid) FROM _synchro_changes")) ?? 0
        if last >= longLog { try fold(in: db) }
    }

    /// Whether writes wait in the log.
    static func isEmpty(in db: Database) throws -> Bool {
        try !(Bool.fetchOne(try db.cachedStatement(sql: "SELECT EXISTS (SELECT 1 FROM _synchro_changes)")) ?? false)
    }

    /// Folds the log into the pending queue, oldest write first, and empties it. Coalescing per
    /// record:
    ///
    /// | pending   | new write | result                                               |
    /// |-----------|-----------|------------------------------------------------------|
    /// | —         | any       | the write's operation                                |
    /// | create    | update    | create                                               |
    /// | create    | delete    | nothing — unless the create is already in flight: delete |
    /// | delete    | create    | update                                               |
    /// | update    | create    | update                                               |
    /// | otherwise |           | the newer operation, the earlier base                |
    ///
    /// A create and a delete that cancel out leave a `__drop` row until the fold ends; a later
    /// write of the same record in the same fold finds it and starts afresh, as it would have
    /// found no row (its operation is the write's; its base, null as a create's, becomes the
    /// write's). Every folded write gives its record the next seq: the newest seq is
    /// looked up for each row (an uncorrelated `MAX(seq)` would be worked out once for the whole
    /// statement, and every record folded after the first would collide on it).
    static func fold(in db: Database) throws {
        guard try !isEmpty(in: db) else { return }
        try db.execute(
            sql: """
                INSERT INTO _synchro_pending (table_name, record_id, operation, base_updated_at, client_updated_at)
                    SELECT table_name, lower(record_id), operation, base_updated_at, strftime('%Y-%m-%dT%H:%M:%fZ', written_at)
                    FROM _synchro_changes WHERE true ORDER BY rowid
                    ON CONFLICT (table_name, record_id) DO UPDATE SET
                        operation = CASE
                            WHEN operation = '__drop' THEN excluded.operation
                            WHEN operation = 'create' AND excluded.operation = 'delete'
                                THEN CASE WHEN inflight_seq IS NULL THEN '__drop' ELSE 'delete' END
                            WHEN operation = 'create' THEN 'create'
                            WHEN excluded.operation = 'create' THEN 'update'
                            ELSE excluded.operation END,
                        base_updated_at = CASE
                            WHEN operation = 'create' THEN NULL
                            ELSE COALESCE(base_updated_at, excluded.base_updated_at) END,
                        client_updated_at = excluded.client_updated_at,
                        seq = (SELECT newest.seq + 1 FROM _synchro_pending AS newest
                            WHERE newest.seq >= _synchro_pending.seq ORDER BY newest.seq DESC LIMIT 1);
                DELETE FROM _synchro_pending WHERE operation = '__drop';
                DELETE FROM _synchro_changes;
                """
        )
    }
}

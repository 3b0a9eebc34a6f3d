import GRDB
import GRDBBinding

/// Rows no scope holds: a device's copy of a row the server keeps only in another user's scope
/// (one it wrote for that user, say) is not this device's to keep.
///
/// A pass over every row of the synced tables finds them, and its cost grows with the data
/// (7.5 ms for 10,000 tasks here, on every cycle that pushed even one row). So the records that
/// may have become unheld are written down as it happens (`_synchro_unheld_candidates`: the
/// records a push settled, a row a scope left while something kept it) and the pass looks at
/// those only. The whole pass is left for what may touch any row: a new schema, a database
/// moved from protocol 1, a rejection the app cleared (``MetaStore/Key/unheldRowsPruned``
/// absent).
extension ScopeState {
    /// Notes that the record may be held by no scope once the current pull ends.
    static func markMayBeUnheld(table: String, id: String, in db: Database) throws {
        try db.cachedStatement(sql: "INSERT INTO _synchro_unheld_candidates (table_name, record_id) VALUES (?, ?) ON CONFLICT DO NOTHING")
            .execute(binding: [table.databaseValue, id.databaseValue])
    }

    /// The same for many records, many to a statement: call ``MultiRowStatement/flush()`` at the end.
    static func unheldCandidateWriter(in db: Database) -> MultiRowStatement {
        MultiRowStatement(columnCount: 2, in: db) { rows in
            "INSERT INTO _synchro_unheld_candidates (table_name, record_id) VALUES \(rows) ON CONFLICT DO NOTHING"
        }
    }

    /// Whether ``pruneUnheld(schema:onlyIfDue:in:)`` has anything to look at.
    static func unheldPassDue(in db: Database) throws -> Bool {
        try MetaStore.string(.unheldRowsPruned, in: db) == nil || hasUnheldCandidates(in: db)
    }

    private static func hasUnheldCandidates(in db: Database) throws -> Bool {
        try Bool.fetchOne(try db.cachedStatement(sql: "SELECT EXISTS (SELECT 1 FROM _synchro_unheld_candidates)")) ?? false
    }

    /// Deletes the live rows of the synced tables that no scope holds and no local change
    /// needs, and whose rejection the app has not cleared yet (it keeps a refused row to mend
    /// it). Only right when every scope is complete (just rebuilt, or its checksum matched);
    /// tombstones stay. Call with the sync lock held.
    ///
    /// Looks at every row when ``MetaStore/Key/unheldRowsPruned`` is absent (or not
    /// `onlyIfDue`), else at the candidates only; either way the candidates are done with.
    static func pruneUnheld(schema: LocalSchema, onlyIfDue: Bool = false, in db: Database) throws {
        let everyRow = try !onlyIfDue || MetaStore.string(.unheldRowsPruned, in: db) == nil
        if !everyRow, try !hasUnheldCandidates(in: db) { return }
        for table in schema.tables {
            let key = table.primaryKey.quotedDatabaseIdentifier
            // The candidates' keys, as the provenance and the queue spell them (NOCASE).
            let which = everyRow ? "" : "AND \(key) IN (SELECT record_id FROM _synchro_unheld_candidates WHERE table_name = ?)"
            try db.execute(
                sql: """
                    DELETE FROM \(table.name.quotedDatabaseIdentifier) WHERE \(table.deletedAt.quotedDatabaseIdentifier) IS NULL \(which)
                    AND NOT EXISTS (SELECT 1 FROM _synchro_scope_rows WHERE table_name = ? AND record_id = \(key))
                    AND NOT EXISTS (SELECT 1 FROM _synchro_pending WHERE table_name = ? AND record_id = \(key) COLLATE NOCASE)
                    AND NOT EXISTS (SELECT 1 FROM _synchro_rejected_mutations WHERE table_name = ? AND record_id = \(key) COLLATE NOCASE)
                    """,
                arguments: StatementArguments(Array(repeating: table.name, count: everyRow ? 3 : 4))
            )
        }
        try db.execute(sql: "DELETE FROM _synchro_unheld_candidates")
        if everyRow { try MetaStore.set(.unheldRowsPruned, "1", in: db) }
    }
}

import GRDB

/// The XOR of the row checksums each scope holds (what the server's scope checksum is compared
/// with), kept as the provenance changes: `_synchro_scopes.local_checksum`, NULL when not
/// known.
///
/// Summing a scope's rows at each last page that changed it cost 2.4 ms for 10,000 rows here,
/// on every cycle that pushed or pulled even one row: more than the rest of that cycle's
/// client work, and growing with the data. The sum is kept instead, in the transactions that
/// change the provenance (a rollback takes both back): a page's ``Tagger`` adds what it tags
/// and takes out what it replaces, an untagged row is taken out, a new scope starts at 0. A
/// rebuild sums its scope's rows again at its end, where a sum gone wrong is put right.
/// (Triggers on the provenance would keep it too, at 5,000 instructions a row on a page of
/// 10,000: 8 % of applying it.)
extension ScopeState {
    /// The column, in a file made before it (NULL there: summed at its first use).
    static func installLocalChecksum(in db: Database) throws {
        let columns = try Row.fetchAll(db, sql: "PRAGMA table_info(_synchro_scopes)").map { $0["name"] as String }
        if !columns.contains("local_checksum") {
            try db.execute(sql: "ALTER TABLE _synchro_scopes ADD COLUMN local_checksum INTEGER")
        }
    }

    /// The XOR of the checksums of the rows `scope` holds: the kept sum, or, when not known,
    /// the sum of its rows, kept from now on. Call in a write transaction.
    static func localChecksum(_ scope: String, in db: Database) throws -> Int32 {
        let select = try db.cachedStatement(sql: "SELECT local_checksum FROM _synchro_scopes WHERE scope_id = ?")
        try select.bind([scope.databaseValue])
        if let kept = try Int64?.fetchOne(select) ?? nil { return Int32(truncatingIfNeeded: kept) }
        let sum = try summedChecksum(scope, in: db)
        try setLocalChecksum(sum, of: scope, in: db)
        return sum
    }

    static func setLocalChecksum(_ sum: Int32, of scope: String, in db: Database) throws {
        try db.cachedStatement(sql: "UPDATE _synchro_scopes SET local_checksum = ? WHERE scope_id = ?")
            .execute(binding: [Int64(sum).databaseValue, scope.databaseValue])
    }

    /// XORs `delta` into the kept sum of `scope` (a sum not known stays so).
    static func changeLocalChecksum(of scope: String, by delta: Int32, in db: Database) throws {
        guard delta != 0 else { return }
        // SQLite has no XOR operator; the sum is read and written in this transaction.
        let select = try db.cachedStatement(sql: "SELECT local_checksum FROM _synchro_scopes WHERE scope_id = ?")
        try select.bind([scope.databaseValue])
        guard let kept = try Int64?.fetchOne(select) ?? nil else { return }
        try setLocalChecksum(Int32(truncatingIfNeeded: kept) ^ delta, of: scope, in: db)
    }

    /// Every scope's kept sum summed again from its rows (a seed's, an adopted file's), when the
    /// file has the column.
    static func sumLocalChecksumsAgain(in db: Database) throws {
        guard try db.tableExists("_synchro_scope_rows"), try db.columns(in: "_synchro_scopes").contains(where: { $0.name == "local_checksum" }) else {
            return
        }
        for scope in try String.fetchAll(db, sql: "SELECT scope_id FROM _synchro_scopes") {
            try setLocalChecksum(try summedChecksum(scope, in: db), of: scope, in: db)
        }
    }

    /// The XOR of the checksums of the rows `scope` holds, summed from them.
    static func summedChecksum(_ scope: String, in db: Database) throws -> Int32 {
        let values = try Int64.fetchAll(db, sql: "SELECT checksum FROM _synchro_scope_rows WHERE scope_id = ?", arguments: [scope])
        return ScopeChecksum.combine(values.map { Int32(truncatingIfNeeded: $0) })
    }
}

import GRDBSQLite

/// What the tracking functions know on one connection: whether a merge is writing (then the
/// triggers stand down), and the open write transaction's clock and feed position.
///
/// **One commit, one tick.** The contract gives a local commit `clock + 1` however many rows
/// it writes, but SQL triggers cannot see transaction boundaries. So the first tracked write
/// of a transaction loads the clock and the end of the feed from the database — under the
/// write lock, so no other connection can move them until this transaction ends — every
/// write of the transaction takes that `clock + 1`, and the commit and rollback hooks forget
/// it. Nothing is written per transaction to keep the clock: it is read back from the
/// metadata itself (the record written last carries the latest local version), with floors
/// in `_crdt_state` that merges and compaction raise. A rolled-back transaction leaves no
/// metadata, so the clock is as it was, and a savepoint rolled back inside a transaction only
/// leaves gaps in the feed sequence (which is unique and increasing, not dense).
final class TrackingContext {
    /// The write transaction in progress, as loaded by its first tracked write.
    struct Transaction {
        var node: Int64
        /// The clock before this transaction's local writes (raised by merges in it).
        var clock: Int64
        /// The last feed sequence handed out.
        var sequence: Int64
        /// This transaction's local version, once a local write took it.
        var version: Int64?
        /// The record the last sequence was handed to: the metadata of one row write spans
        /// several expressions in a trigger, and they must share one sequence.
        var lastTable: Int64 = -1
        var lastKey: UInt64 = 0
    }

    struct Failure: Error {
        let message: String
        var code: Int32 = SQLITE_ERROR
    }

    /// The raw connection; the context lives exactly as long as the functions registered on
    /// it, which SQLite destroys when it closes the connection.
    let handle: OpaquePointer
    /// Set by a merge while it writes: local-write triggers stand down.
    var merging = false
    private(set) var transaction: Transaction?

    init(handle: OpaquePointer) {
        self.handle = handle
    }

    /// Commit and rollback both end what was loaded.
    func transactionEnded() {
        transaction = nil
    }

    /// The transaction's local version: `clock + 1`, the same for every write until commit.
    func version() throws(Failure) -> Int64 {
        var current = try loaded()
        if let version = current.version { return version }
        guard current.clock < Int64.max else { throw Self.overflow }
        current.version = current.clock + 1
        transaction = current
        return current.clock + 1
    }

    /// The node id local writes are stamped with.
    func node() throws(Failure) -> Int64 {
        try loaded().node
    }

    /// The feed sequence of one row write: a new one unless the previous call was for the
    /// same record (the other expressions of the same trigger).
    func sequence(table: Int64, key: UInt64) throws(Failure) -> Int64 {
        var current = try loaded()
        if current.lastTable == table, current.lastKey == key { return current.sequence }
        current.sequence += 1
        current.lastTable = table
        current.lastKey = key
        transaction = current
        return current.sequence
    }

    /// A new feed sequence for a merged record or a backfill.
    func nextSequence() throws(Failure) -> Int64 {
        var current = try loaded()
        current.sequence += 1
        current.lastTable = -1
        transaction = current
        return current.sequence
    }

    /// The clock as a reader sees it: this transaction's version once it wrote, otherwise the
    /// stored one.
    func clock() throws(Failure) -> Int64 {
        if let transaction { return transaction.version ?? transaction.clock }
        return try load().clock
    }

    /// The feed's end (the last sequence handed out or stored).
    func lastSequence() throws(Failure) -> Int64 {
        if let transaction { return transaction.sequence }
        return try load().sequence
    }

    /// A merge raises the clock to `remote` before it writes; returns the clock to store as
    /// the floor (it also covers this transaction's local version, so the floor stays right
    /// once merged rows are the latest ones). Later local writes in the same transaction keep
    /// its version if it has one (one transaction, one version) and take `clock + 1` if not.
    func raiseClock(to remote: Int64) throws(Failure) -> Int64 {
        var current = try loaded()
        current.clock = max(current.clock, current.version ?? 0, remote)
        current.lastTable = -1
        transaction = current
        return current.clock
    }

    static let overflow = Failure(message: "crdt_clock_overflow: the CRDT clock would pass Int64.max")

    // MARK: - Loading

    /// The transaction's state, loaded on first use. Only call it while a write transaction
    /// is open (a trigger's statement, or inside `transaction {}`): the hooks that forget it
    /// run when that transaction ends. (`sqlite3_get_autocommit` cannot tell: it says 1
    /// during a statement's implicit transaction.)
    private func loaded() throws(Failure) -> Transaction {
        if let transaction { return transaction }
        let fresh = try load()
        transaction = fresh
        return fresh
    }

    /// Reads the node, the stored floors and the record written last.
    private func load() throws(Failure) -> Transaction {
        var statement: OpaquePointer?
        let sql = """
            SELECT s.node_id, s.clock, s.seq, r.seq, r.life_version, r.cells
            FROM _crdt_state AS s LEFT JOIN (SELECT seq, life_version, cells FROM _crdt_rows ORDER BY seq DESC LIMIT 1) AS r ON 1
            WHERE s.id = 1
            """
        var code = sqlite3_prepare_v2(handle, sql, -1, &statement, nil)
        defer { sqlite3_finalize(statement) }
        guard code == SQLITE_OK, let statement else { throw failure("cannot read the CRDT state", code) }
        code = sqlite3_step(statement)
        guard code == SQLITE_ROW else {
            throw code == SQLITE_DONE ? Failure(message: "crdt: the CRDT state row is missing") : failure("cannot read the CRDT state", code)
        }
        var clock = max(sqlite3_column_int64(statement, 1), sqlite3_column_int64(statement, 4))
        if sqlite3_column_type(statement, 5) == SQLITE_BLOB, let cells = sqlite3_column_blob(statement, 5) {
            let bytes = UnsafeRawBufferPointer(start: cells, count: Int(sqlite3_column_bytes(statement, 5)))
            clock = max(clock, CellBlob.maxDBVersion(bytes))
        }
        return Transaction(
            node: sqlite3_column_int64(statement, 0),
            clock: clock,
            sequence: max(sqlite3_column_int64(statement, 2), sqlite3_column_int64(statement, 3))
        )
    }

    private func failure(_ what: String, _ code: Int32) -> Failure {
        Failure(message: "crdt: \(what): \(String(cString: sqlite3_errmsg(handle)))", code: code)
    }
}

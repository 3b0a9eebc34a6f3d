/// A table under CRDT tracking: its id in `_crdt_tables`, its primary key and the columns
/// whose values replicate (in table order: a column's position in the record's ``CellBlob``).
struct TrackedTable: Hashable, Sendable {
    let id: Int64
    let name: String
    let primaryKey: String
    let columns: [String]

    /// Column positions by name.
    var positions: [String: Int] { Dictionary(columns.enumerated().map { ($1, $0) }, uniquingKeysWith: { first, _ in first }) }

    /// Positions in column-name order: the order the feed lists one write's cells in.
    var positionsByName: [Int] { columns.indices.sorted { columns[$0] < columns[$1] } }

    private var table: String { SQLText.identifier(name) }
    private var key: String { SQLText.identifier(primaryKey) }

    /// Trigger names, derived from the table name so several tables never clash.
    private func trigger(_ suffix: String) -> String { SQLText.identifier("_crdt_\(name)_\(suffix)") }

    /// The 64-bit masks `crdt_cells` takes, with `bit(position)` (an SQL expression that is
    /// 0 or 1) at each position.
    private func masks(_ bit: (Int) -> String) -> [String] {
        stride(from: 0, to: columns.count, by: 64).map { start in
            (start..<min(start + 64, columns.count)).map { position in
                let shift = position - start
                return shift == 0 ? "(\(bit(position)))" : "((\(bit(position))) << \(shift))"
            }.joined(separator: " | ")
        }
    }

    /// Masks with every column set, as integer literals (an insert stamps every column).
    private var allColumns: [String] {
        stride(from: 0, to: columns.count, by: 64).map { start in
            let count = min(64, columns.count - start)
            return String(Int64(bitPattern: count == 64 ? UInt64.max : (UInt64(1) << UInt64(count)) - 1))
        }
    }

    /// `crdt_cells(<cells>, <the life's stamp>, version, node, sequence, masks…)`, in an
    /// UPDATE of `_crdt_rows` (where `life_*` are the row's values before the update).
    private func cells(_ existing: String, version: String, node: String, sequence: String, masks: [String]) -> String {
        (["crdt_cells(\(existing)", "life_version", "life_node", "life_seq", version, node, sequence] + masks).joined(separator: ", ") + ")"
    }

    /// Where the triggers compare a row's key with `_crdt_rows.pk`, they write `+NEW.key`: `pk`
    /// has no type affinity, and comparing it with a column that has one (INTEGER) converts
    /// it first, which keeps SQLite off the primary key index (a scan of every record per row
    /// write). The unary plus drops the column's affinity, so the values compare as stored.
    ///
    /// Drops and recreates the triggers (for enabling, after ADD COLUMN, and when migrating).
    /// Each row write records its metadata with one statement on one metadata row, inside
    /// the writer's own statement (so it commits or rolls back with the row), stamped with
    /// the transaction's version (`crdt_version()`: one tick per commit). They stand down
    /// while a merge writes (`crdt_tracking()`), instead of being dropped.
    var triggerScript: String {
        var script = ["ins", "upd", "del", "pk"].map { "DROP TRIGGER IF EXISTS \(trigger($0));" }
        let sequence = { (row: String) in "crdt_seq(\(id), \(row).\(key))" }
        let reinsertCells = cells("CASE WHEN cl % 2 = 0 THEN NULL ELSE cells END", version: "excluded.life_version", node: "excluded.life_node", sequence: "excluded.seq", masks: allColumns)
        // A new record's cells are all stamped like its life: the implied form, the column
        // count (see CellBlob). An insert over a live record (INSERT OR REPLACE) bumps every
        // column; over a tombstone it resurrects the record (causal length + 1) with fresh
        // columns.
        script.append(
            """
            CREATE TRIGGER \(trigger("ins")) AFTER INSERT ON \(table) WHEN crdt_tracking() BEGIN
              INSERT INTO _crdt_rows (tbl, pk, cl, life_version, life_node, life_seq, seq, cells)
                VALUES (\(id), NEW.\(key), 1, crdt_version(), crdt_node(), \(sequence("NEW")), \(sequence("NEW")), \(columns.count))
                ON CONFLICT (tbl, pk) DO UPDATE SET cl = CASE WHEN cl % 2 = 0 THEN cl + 1 ELSE cl END,
                  life_version = excluded.life_version, life_node = excluded.life_node, life_seq = excluded.seq, seq = excluded.seq,
                  cells = \(reinsertCells);
            END;
            """
        )
        if !columns.isEmpty {
            let changed = { (position: Int) in "NEW.\(SQLText.identifier(columns[position])) IS NOT OLD.\(SQLText.identifier(columns[position]))" }
            let updateCells = cells("cells", version: "crdt_version()", node: "crdt_node()", sequence: sequence("NEW"), masks: masks(changed))
            script.append(
                """
                CREATE TRIGGER \(trigger("upd")) AFTER UPDATE ON \(table) WHEN crdt_tracking() AND (\(columns.indices.map(changed).joined(separator: " OR "))) BEGIN
                  UPDATE _crdt_rows SET seq = \(sequence("NEW")), cells = \(updateCells) WHERE tbl = \(id) AND pk = +NEW.\(key);
                END;
                """
            )
        }
        script.append(
            """
            CREATE TRIGGER \(trigger("del")) AFTER DELETE ON \(table) WHEN crdt_tracking() BEGIN
              INSERT INTO _crdt_rows (tbl, pk, cl, life_version, life_node, life_seq, seq, cells)
                VALUES (\(id), OLD.\(key), 2, crdt_version(), crdt_node(), \(sequence("OLD")), \(sequence("OLD")), NULL)
                ON CONFLICT (tbl, pk) DO UPDATE SET cl = CASE WHEN cl % 2 = 1 THEN cl + 1 ELSE cl END,
                  life_version = excluded.life_version, life_node = excluded.life_node, life_seq = excluded.seq, seq = excluded.seq, cells = NULL;
            END;
            """
        )
        script.append(
            """
            CREATE TRIGGER \(trigger("pk")) BEFORE UPDATE OF \(key) ON \(table) WHEN NEW.\(key) IS NOT OLD.\(key) BEGIN
              SELECT RAISE(ABORT, 'crdt: the primary key of a tracked row cannot change; delete and insert instead');
            END;
            """
        )
        return script.joined(separator: "\n")
    }

    /// Drops the triggers of the first metadata layout (they update `_crdt_state` per row).
    var legacyTriggerDrops: String {
        ["ins", "upd", "del", "pk"].map { "DROP TRIGGER IF EXISTS \(trigger($0));" }.joined(separator: "\n")
    }

    /// Whether any row of the table has no metadata yet.
    var untrackedRowsQuery: String {
        "SELECT EXISTS (SELECT 1 FROM \(table) AS t WHERE NOT EXISTS (SELECT 1 FROM _crdt_rows WHERE tbl = \(id) AND pk = +t.\(key)))"
    }

    /// Metadata for rows that existed before tracking began: one version and one sequence
    /// for all of them (one write).
    func backfill(version: Int64, node: Int64, sequence: Int64) -> String {
        """
        INSERT OR IGNORE INTO _crdt_rows (tbl, pk, cl, life_version, life_node, life_seq, seq, cells)
          SELECT \(id), t.\(key), 1, \(version), \(node), \(sequence), \(sequence), \(columns.count) FROM \(table) AS t;
        """
    }

    /// The feed of one table after a cursor, in cursor order, with each record's current
    /// values (column 7: whether the row exists; 8… the values in column position order).
    var changesQuery: String {
        let values = columns.map { "t.\(SQLText.identifier($0))" }
        return """
            SELECT \((["r.pk", "r.cl", "r.life_version", "r.life_node", "r.life_seq", "r.seq", "r.cells", "t.\(key) IS NOT NULL"] + values).joined(separator: ", "))
            FROM _crdt_rows AS r LEFT JOIN \(table) AS t ON t.\(key) = r.pk
            WHERE r.seq > ? AND r.tbl = \(id) ORDER BY r.seq
            """
    }

    /// Writes merged values: inserts the record, or sets the given columns of the existing one.
    func upsertStatement(positions: [Int]) -> String {
        let names = positions.map { SQLText.identifier(columns[$0]) }
        let marks = Array(repeating: "?", count: positions.count + 1).joined(separator: ", ")
        let sets = names.map { "\($0) = excluded.\($0)" }.joined(separator: ", ")
        return "INSERT INTO \(table) (\(([key] + names).joined(separator: ", "))) VALUES (\(marks)) ON CONFLICT (\(key)) DO UPDATE SET \(sets)"
    }

    var deleteStatement: String { "DELETE FROM \(table) WHERE \(key) = ?" }
}

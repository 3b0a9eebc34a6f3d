/// A table under CRDT tracking: its primary key and the columns whose values replicate.
struct TrackedTable: Hashable, Sendable {
    let name: String
    let primaryKey: String
    let columns: [String]

    private var table: String { SQLText.identifier(name) }
    private var key: String { SQLText.identifier(primaryKey) }
    private var nameLiteral: String { SQLText.literal(name) }

    /// Trigger names, derived from the table name so several tables never clash.
    private func trigger(_ suffix: String) -> String { SQLText.identifier("_crdt_\(name)_\(suffix)") }

    static let guardClause = "(SELECT merging FROM _crdt_state) = 0"
    private static let tick = "UPDATE _crdt_state SET clock = clock + 1, seq = seq + 1;"

    /// Drops and recreates the triggers (for enabling, and after ADD COLUMN). They record
    /// metadata inside the writer's own statement, so it commits or rolls back with the row,
    /// and they stand down while a merge writes (the `merging` flag), instead of being dropped.
    var triggerScript: String {
        var script = ["ins", "upd", "del", "pk"].map { "DROP TRIGGER IF EXISTS \(trigger($0));" }
        let bumpColumns = { (source: String, condition: (String) -> String) -> [String] in
            columns.map { column in
                """
                INSERT INTO _crdt_columns (tbl, pk, col, col_version, db_version, node_id, seq)
                  SELECT \(nameLiteral), \(source).\(key), \(SQLText.literal(column)), 1, clock, node_id, seq FROM _crdt_state WHERE \(condition(column))
                  ON CONFLICT (tbl, pk, col) DO UPDATE SET col_version = col_version + 1, db_version = excluded.db_version, node_id = excluded.node_id, seq = excluded.seq;
                """
            }
        }
        script.append("""
        CREATE TRIGGER \(trigger("ins")) AFTER INSERT ON \(table) WHEN \(Self.guardClause) BEGIN
          \(Self.tick)
          INSERT INTO _crdt_records (tbl, pk, cl, db_version, node_id, seq)
            SELECT \(nameLiteral), NEW.\(key), 1, clock, node_id, seq FROM _crdt_state WHERE true
            ON CONFLICT (tbl, pk) DO UPDATE SET cl = CASE WHEN cl % 2 = 0 THEN cl + 1 ELSE cl END, db_version = excluded.db_version, node_id = excluded.node_id, seq = excluded.seq;
          \(bumpColumns("NEW", { _ in "true" }).joined(separator: "\n  "))
        END;
        """)
        if !columns.isEmpty {
            let changed = columns.map { "NEW.\(SQLText.identifier($0)) IS NOT OLD.\(SQLText.identifier($0))" }
            script.append("""
            CREATE TRIGGER \(trigger("upd")) AFTER UPDATE ON \(table) WHEN \(Self.guardClause) AND (\(changed.joined(separator: " OR "))) BEGIN
                  \(Self.tick)
              \(bumpColumns("NEW", { "NEW.\(SQLText.identifier($0)) IS NOT OLD.\(SQLText.identifier($0))" }).joined(separator: "\n  "))
            END;
            """)
        }
        script.append("""
        CREATE TRIGGER \(trigger("del")) AFTER DELETE ON \(table) WHEN \(Self.guardClause) BEGIN
          \(Self.tick)
          INSERT INTO _crdt_records (tbl, pk, cl, db_version, node_id, seq)
            SELECT \(nameLiteral), OLD.\(key), 2, clock, node_id, seq FROM _crdt_state WHERE true
            ON CONFLICT (tbl, pk) DO UPDATE SET cl = CASE WHEN cl % 2 = 1 THEN cl + 1 ELSE cl END, db_version = excluded.db_version, node_id = excluded.node_id, seq = excluded.seq;
          DELETE FROM _crdt_columns WHERE tbl = \(nameLiteral) AND pk = OLD.\(key);
        END;
        """)
        script.append("""
        CREATE TRIGGER \(trigger("pk")) BEFORE UPDATE OF \(key) ON \(table) WHEN NEW.\(key) IS NOT OLD.\(key) BEGIN
          SELECT RAISE(ABORT, 'crdt: the primary key of a tracked row cannot change; delete and insert instead');
        END;
        """)
        return script.joined(separator: "\n")
    }

    /// Metadata for rows that existed before tracking began (one clock tick for all of them).
    var backfillScript: String {
        var script = [
            "UPDATE _crdt_state SET clock = clock + 1, seq = seq + 1 WHERE EXISTS (SELECT 1 FROM \(table) WHERE \(key) NOT IN (SELECT pk FROM _crdt_records WHERE tbl = \(nameLiteral)));",
            """
            INSERT OR IGNORE INTO _crdt_records (tbl, pk, cl, db_version, node_id, seq)
              SELECT \(nameLiteral), t.\(key), 1, s.clock, s.node_id, s.seq FROM \(table) AS t, _crdt_state AS s;
            """,
        ]
        for column in columns {
            script.append("""
            INSERT OR IGNORE INTO _crdt_columns (tbl, pk, col, col_version, db_version, node_id, seq)
              SELECT \(nameLiteral), t.\(key), \(SQLText.literal(column)), 1, s.clock, s.node_id, s.seq FROM \(table) AS t, _crdt_state AS s;
            """)
        }
        return script.joined(separator: "\n")
    }

    /// Column changes since a cursor, with the current values (one CASE per column, so the
    /// feed is one query per table).
    var columnChangesQuery: String {
        let cases = columns.map { "WHEN \(SQLText.literal($0)) THEN t.\(SQLText.identifier($0))" }.joined(separator: " ")
        let value = columns.isEmpty ? "NULL" : "CASE c.col \(cases) END"
        return """
        SELECT c.pk, c.col, \(value), c.col_version, c.db_version, c.node_id, c.seq
        FROM _crdt_columns AS c JOIN \(table) AS t ON t.\(key) = c.pk
        WHERE c.tbl = \(nameLiteral) AND c.seq > ?
        """
    }

    func updateStatement(column: String) -> String {
        "UPDATE \(table) SET \(SQLText.identifier(column)) = ? WHERE \(key) = ?"
    }

    func insertStatement(columns inserted: [String]) -> String {
        let names = ([primaryKey] + inserted).map(SQLText.identifier).joined(separator: ", ")
        let marks = Array(repeating: "?", count: inserted.count + 1).joined(separator: ", ")
        return "INSERT INTO \(table) (\(names)) VALUES (\(marks))"
    }

    var existsStatement: String { "SELECT 1 FROM \(table) WHERE \(key) = ?" }
    var deleteStatement: String { "DELETE FROM \(table) WHERE \(key) = ?" }
}

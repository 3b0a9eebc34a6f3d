import Foundation
import GRDBSQLite
import SelfDBStore

extension CRDTSQLite {
    /// The metadata tables. `_crdt_state` holds the node id and floors for the clock and the
    /// feed sequence (their live values are read back from `_crdt_rows`, see
    /// ``TrackingContext``); its `merging` column is unused since the merge flag moved to the
    /// connection, and stays so both layouts share the table. `_crdt_rows` holds one row per
    /// record: its life (causal length `cl` and the write that set it), the sequence of its
    /// latest write (indexed: the feed), and its cells (``CellBlob``: packed, or for a record as
    /// inserted, just the number of columns). `_crdt_records` and
    /// `_crdt_columns` show it in the first layout's shape, for inspection.
    static var metadataSchema: String {
        """
        CREATE TABLE IF NOT EXISTS _crdt_state (id INTEGER PRIMARY KEY CHECK (id = 1), node_id INTEGER NOT NULL, clock INTEGER NOT NULL, seq INTEGER NOT NULL, merging INTEGER NOT NULL DEFAULT 0, CONSTRAINT crdt_clock_overflow CHECK (typeof(clock) = 'integer' AND typeof(seq) = 'integer'));
        CREATE TABLE IF NOT EXISTS _crdt_tables (id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE, pk TEXT NOT NULL, columns TEXT NOT NULL DEFAULT '[]');
        CREATE TABLE IF NOT EXISTS _crdt_rows (tbl INTEGER NOT NULL, pk NOT NULL, cl INTEGER NOT NULL, life_version INTEGER NOT NULL, life_node INTEGER NOT NULL, life_seq INTEGER NOT NULL, seq INTEGER NOT NULL, cells BLOB, PRIMARY KEY (tbl, pk)) WITHOUT ROWID;
        CREATE INDEX IF NOT EXISTS _crdt_rows_seq ON _crdt_rows (seq);
        CREATE VIEW IF NOT EXISTS _crdt_records (tbl, pk, cl, db_version, node_id, seq) AS
          SELECT t.name, r.pk, r.cl, r.life_version, r.life_node, r.life_seq FROM _crdt_rows AS r JOIN _crdt_tables AS t ON t.id = r.tbl;
        CREATE VIEW IF NOT EXISTS _crdt_columns (tbl, pk, col, col_version, db_version, node_id, seq) AS
          SELECT t.name, r.pk, json_extract(t.columns, '$[' || json_extract(c.value, '$[0]') || ']'),
            json_extract(c.value, '$[1]'), json_extract(c.value, '$[2]'), json_extract(c.value, '$[3]'), json_extract(c.value, '$[4]')
          FROM _crdt_rows AS r JOIN _crdt_tables AS t ON t.id = r.tbl JOIN json_each(crdt_cells_json(r.cells, r.life_version, r.life_node, r.life_seq)) AS c;
        """
    }

    /// Moves a file of the first layout (until issue 17: a `_crdt_records` row per record and
    /// a `_crdt_columns` row per cell, triggers that ticked the clock per row) to the current
    /// one, in one transaction. Versions, node ids and feed sequences are kept as they were,
    /// so the feed reads the same and peers see no difference.
    func migrateFirstLayout() throws {
        let isFirstLayout = "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = '_crdt_records'"
        guard try run({ try !connection.execute(isFirstLayout).all().isEmpty }) else { return }
        try run {
            try connection.transaction {
                guard try !connection.execute(isFirstLayout).all().isEmpty else { return }
                let names = try connection.execute("SELECT name FROM _crdt_tables ORDER BY name").all().compactMap { $0[0] as String? }
                try connection.executeScript("ALTER TABLE _crdt_tables RENAME TO _crdt_tables_first")
                try connection.executeScript(
                    """
                    CREATE TABLE _crdt_tables (id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE, pk TEXT NOT NULL, columns TEXT NOT NULL DEFAULT '[]');
                    CREATE TABLE _crdt_rows (tbl INTEGER NOT NULL, pk NOT NULL, cl INTEGER NOT NULL, life_version INTEGER NOT NULL, life_node INTEGER NOT NULL, life_seq INTEGER NOT NULL, seq INTEGER NOT NULL, cells BLOB, PRIMARY KEY (tbl, pk)) WITHOUT ROWID;
                    """
                )
                for name in names {
                    try connection.execute("INSERT INTO _crdt_tables (name, pk) SELECT name, pk FROM _crdt_tables_first WHERE name = ?", name)
                    let table = try describe(name, id: connection.lastInsertRowID)
                    try connection.executeScript(table.legacyTriggerDrops)
                    try moveFirstLayoutRows(of: table)
                }
                try connection.executeScript("DROP TABLE _crdt_records; DROP TABLE _crdt_columns; DROP TABLE _crdt_tables_first;")
                try connection.executeScript(Self.metadataSchema)
                for name in names {
                    guard let id: Int64 = try connection.execute("SELECT id FROM _crdt_tables WHERE name = ?", name).one()[0] else { continue }
                    try save(describe(name, id: id))
                }
            }
        }
        statements.clear()
    }

    /// One `_crdt_rows` row per record of the first layout's `_crdt_records` and `_crdt_columns`.
    private func moveFirstLayoutRows(of table: TrackedTable) throws {
        var records: [SQLiteValue: (life: Cell?, cells: [Cell?])] = [:]
        var order: [SQLiteValue] = []
        let empty: (life: Cell?, cells: [Cell?]) = (nil, Array(repeating: nil, count: table.columns.count))
        for row in try connection.execute("SELECT pk, cl, db_version, node_id, seq FROM _crdt_records WHERE tbl = ?", table.name) {
            let key = row.values[0]
            if records[key] == nil { order.append(key) }
            records[key, default: empty].life = Cell(version: row[1] ?? 0, dbVersion: row[2] ?? 0, node: row[3] ?? 0, sequence: row[4] ?? 0)
        }
        let positions = table.positions
        for row in try connection.execute("SELECT pk, col, col_version, db_version, node_id, seq FROM _crdt_columns WHERE tbl = ?", table.name) {
            let key = row.values[0]
            guard let column: String = row[1], let position = positions[column] else { continue }
            if records[key] == nil { order.append(key) }
            records[key, default: empty].cells[position] = Cell(version: row[2] ?? 0, dbVersion: row[3] ?? 0, node: row[4] ?? 0, sequence: row[5] ?? 0)
        }
        let insert = try connection.prepare("INSERT INTO _crdt_rows (tbl, pk, cl, life_version, life_node, life_seq, seq, cells) VALUES (?, ?, ?, ?, ?, ?, ?, ?)")
        for key in order {
            guard let record = records[key] else { continue }
            // Cells without a record row cannot come from the first layout's triggers or
            // merges; should one exist, the record is taken as created by its first cell.
            let first = record.cells.lazy.compactMap { $0 }.first
            guard let life = record.life ?? first.map({ Cell(version: 1, dbVersion: $0.dbVersion, node: $0.node, sequence: $0.sequence) }) else { continue }
            let latest = record.cells.reduce(life.sequence) { max($0, $1?.sequence ?? 0) }
            let cells = record.cells.contains { $0 != nil } ? SQLiteValue.blob(Data(CellBlob.encode(record.cells))) : .null
            try insert.execute(arguments: [.integer(table.id), key, .integer(life.version), .integer(life.dbVersion), .integer(life.node), .integer(life.sequence), .integer(latest), cells])
        }
    }
}

import Foundation
import GRDBSQLite
import SelfDBStore

/// The statements of one merge, prepared once per table and driven through the C API: a merge
/// runs three of them per record, and looking them up by SQL text or binding through arrays
/// would cost more than running them.
final class MergeWriter {
    /// A record's metadata as stored in `_crdt_rows`.
    struct Record {
        var causalLength: Int64 = 0
        var life = Cell(version: 0, dbVersion: 0, node: 0, sequence: 0)
        var cells: [Cell?]

        init(columns: Int) {
            cells = Array(repeating: nil, count: columns)
        }
    }

    private struct TableStatements {
        let lookup: OpaquePointer
        let save: OpaquePointer
        let delete: OpaquePointer
        var upserts: [[Int]: OpaquePointer] = [:]
    }

    static let lookupSQL = "SELECT cl, life_version, life_node, life_seq, cells FROM _crdt_rows WHERE tbl = ? AND pk = ?"
    static let saveSQL = """
        INSERT INTO _crdt_rows (tbl, pk, cl, life_version, life_node, life_seq, seq, cells) VALUES (?, ?, ?, ?, ?, ?, ?, ?)
        ON CONFLICT (tbl, pk) DO UPDATE SET cl = excluded.cl, life_version = excluded.life_version, life_node = excluded.life_node,
          life_seq = excluded.life_seq, seq = excluded.seq, cells = excluded.cells
        """

    private let statements: StatementCache
    private let tables: [TrackedTable]
    private var prepared: [TableStatements?]

    init(statements: StatementCache, tables: [TrackedTable]) {
        self.statements = statements
        self.tables = tables
        prepared = Array(repeating: nil, count: tables.count)
    }

    /// The stored metadata of a record, nil if it has none.
    func record(table: Int, key: SQLiteValue) throws -> Record? {
        let lookup = try statementsOf(table).lookup
        sqlite3_bind_int64(lookup, 1, tables[table].id)
        key.bind(to: lookup, at: 2)
        defer { sqlite3_reset(lookup) }
        let code = sqlite3_step(lookup)
        guard code == SQLITE_ROW else {
            if code == SQLITE_DONE { return nil }
            throw statements.failure(Self.lookupSQL, code)
        }
        var record = Record(columns: tables[table].columns.count)
        record.causalLength = sqlite3_column_int64(lookup, 0)
        record.life = Cell(version: record.causalLength, dbVersion: sqlite3_column_int64(lookup, 1), node: sqlite3_column_int64(lookup, 2), sequence: sqlite3_column_int64(lookup, 3))
        CellBlob.forEach(column: 4, of: lookup, life: record.life) { position, cell in
            if position < record.cells.count { record.cells[position] = cell }
        }
        return record
    }

    /// Stores a record's metadata, its latest write at `sequence`.
    func save(_ record: Record, table: Int, key: SQLiteValue, sequence: Int64) throws {
        let save = try statementsOf(table).save
        sqlite3_bind_int64(save, 1, tables[table].id)
        key.bind(to: save, at: 2)
        sqlite3_bind_int64(save, 3, record.causalLength)
        sqlite3_bind_int64(save, 4, record.life.dbVersion)
        sqlite3_bind_int64(save, 5, record.life.node)
        sqlite3_bind_int64(save, 6, record.life.sequence)
        sqlite3_bind_int64(save, 7, sequence)
        if !record.cells.contains(where: { $0 != nil }) {
            sqlite3_bind_null(save, 8)
        } else if let implied = CellBlob.impliedCount(record.cells, life: record.life) {
            // A record merged as it was inserted (every cell stamped like its life).
            sqlite3_bind_int64(save, 8, implied)
        } else {
            CellBlob.encode(record.cells).withUnsafeBytes { bytes in
                _ = sqlite3_bind_blob(save, 8, bytes.baseAddress, Int32(bytes.count), SQLITE_TRANSIENT)
            }
        }
        try statements.step(save, Self.saveSQL)
    }

    /// Sets the given columns of the record's row, inserting the row if it has none.
    func write(_ values: [(position: Int, value: SQLiteValue)], table: Int, key: SQLiteValue) throws {
        let positions = values.map(\.position)
        var entry = try statementsOf(table)
        let upsert: OpaquePointer
        if let known = entry.upserts[positions] {
            upsert = known
        } else {
            upsert = try statements.prepared(tables[table].upsertStatement(positions: positions))
            entry.upserts[positions] = upsert
            prepared[table] = entry
        }
        key.bind(to: upsert, at: 1)
        for (offset, value) in values.enumerated() {
            value.value.bind(to: upsert, at: Int32(offset + 2))
        }
        try statements.step(upsert, self.tables[table].upsertStatement(positions: positions))
    }

    /// Deletes the record's row (the merge has stood the triggers down).
    func delete(table: Int, key: SQLiteValue) throws {
        let delete = try statementsOf(table).delete
        key.bind(to: delete, at: 1)
        try statements.step(delete, tables[table].deleteStatement)
    }

    private func statementsOf(_ table: Int) throws -> TableStatements {
        if let known = prepared[table] { return known }
        let entry = TableStatements(
            lookup: try statements.prepared(Self.lookupSQL),
            save: try statements.prepared(Self.saveSQL),
            delete: try statements.prepared(tables[table].deleteStatement)
        )
        prepared[table] = entry
        return entry
    }
}

import EmulatorSupport
import GRDB
import SelfDBSpec

/// What a scope query sees: every synced table under its spec name, with all of its spec
/// columns (synced or not), over the rows the server stores as `_synchro_row_<name>`.
enum ScopeQueryTables {
    /// Prefixes a synced table may not have when scope queries are in use: its view would
    /// shadow the server's own tables (`_synchro*`) or SQLite's (`sqlite_*`).
    static let reservedPrefixes = ["_synchro", "sqlite_"]

    /// A startup error for a table name a view cannot take, when any table has a query.
    static func reservedNameProblem(in tables: [SyncTable]) -> String? {
        guard tables.contains(where: { $0.scopeQuery != nil }) else { return nil }
        for table in tables {
            let lowered = table.name.lowercased()
            if let prefix = reservedPrefixes.first(where: { lowered.hasPrefix($0) }) {
                return "the synced table '\(table.name)' starts with '\(prefix)', a name scope queries cannot refer to; rename it"
            }
        }
        return nil
    }

    /// Creates the views on this connection when some table has a scope query (only then are
    /// the names checked against ``reservedPrefixes``). They are TEMP, so they live with the
    /// connection and leave the file alone: scope queries run only inside writes, on the
    /// pool's one writer connection, which is where these must be installed.
    static func installViews(_ tables: [SyncTable], in db: Database) throws {
        guard tables.contains(where: { $0.scopeQuery != nil }) else { return }
        for table in tables {
            let columns = table.columns.map { SQLIdentifier.quote($0.name) }.joined(separator: ", ")
            let name = SQLIdentifier.quote(table.name)
            try db.execute(sql: "DROP VIEW IF EXISTS temp.\(name)")
            try db.execute(sql: "CREATE TEMP VIEW \(name) AS SELECT \(columns) FROM main.\(SQLIdentifier.quote(table.storageName))")
        }
    }

    /// Test-runs every scope query in a scratch in-memory database with empty tables of the
    /// same names and columns: one error per broken query, at the spec's `sql:`.
    static func check(_ tables: [SyncTable]) -> [Diagnostic] {
        let queries = tables.compactMap { table in table.scopeQuery.map { (table: table.name, query: $0) } }
        guard let first = queries.first else { return [] }
        do {
            let scratch = try DatabaseQueue()
            return try scratch.write { db in
                for table in tables {
                    let columns = table.columns.map { "\(SQLIdentifier.quote($0.name)) \($0.logicalType.sqliteAffinity)" }
                    try db.execute(sql: "CREATE TABLE \(SQLIdentifier.quote(table.name)) (\(columns.joined(separator: ", ")))")
                }
                return queries.compactMap { entry in
                    entry.query.problem(in: db, table: entry.table).map { Diagnostic.error($0, at: entry.query.location) }
                }
            }
        } catch {
            return [.error("the scope queries could not be checked: \(error)", at: first.query.location)]
        }
    }
}

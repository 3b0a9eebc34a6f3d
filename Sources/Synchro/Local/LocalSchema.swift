import Foundation
import GRDB
import SelfDBRuntime

/// The synced tables as a whole: made from the server's schema, created or migrated in the
/// local database, and ordered so parents are pushed before their children.
struct LocalSchema: Sendable, Equatable {
    var version: Int64
    var hash: String
    var tables: [LocalTable]

    /// Reads a schema response; a table the client cannot store is an invalid response.
    init(version: Int64, hash: String, tables: [SyncTable]) throws(SynchroError) {
        self.version = version
        self.hash = hash
        var checked: [LocalTable] = []
        for table in tables {
            let local = try LocalTable(table)
            guard !checked.contains(where: { $0.name == local.name }) else {
                throw .invalidResponse(message: "the schema lists table '\(local.name)' twice")
            }
            checked.append(local)
        }
        self.tables = checked
    }

    func table(_ name: String) -> LocalTable? {
        tables.first { $0.name == name }
    }

    // What applying a pulled row asks of its table, read in place: `table(_:)` copies the
    // whole table, and a page asked it several times a row (a tenth of applying one).

    /// Whether `name` is a synced table.
    func contains(table name: String) -> Bool {
        tables.contains { $0.name == name }
    }

    /// The key column of the synced table `name`.
    func primaryKey(of name: String) -> String? {
        tables.firstIndex { $0.name == name }.map { tables[$0].primaryKey }
    }

    /// The `updated_at` and `deleted_at` columns of the synced table `name`.
    func timestampColumns(of name: String) -> (updatedAt: String, deletedAt: String)? {
        tables.firstIndex { $0.name == name }.map { (tables[$0].updatedAt, tables[$0].deletedAt) }
    }

    /// Each table's place in push order: parents (dependencies) before children, so a new
    /// task and its first comment created offline arrive in an order the server accepts.
    /// Tables in a cycle (which a server should not send) keep their listed order.
    var pushRank: [String: Int] {
        var rank: [String: Int] = [:]
        var visiting: Set<String> = []
        func visit(_ name: String) -> Int {
            if let known = rank[name] { return known }
            guard !visiting.contains(name), let table = table(name) else { return 0 }
            visiting.insert(name)
            let value = (table.dependencies.map { visit($0) + 1 }.max() ?? 0)
            visiting.remove(name)
            rank[name] = value
            return value
        }
        for table in tables { _ = visit(table.name) }
        return rank
    }

    /// Whether a table of `tables` depends on a table of `others`, directly or through other
    /// tables (a table that refers to itself depends on itself). The push sends a batch before
    /// the answer to the one before it only when this is false: a child's batch waits for the
    /// answer to its parent's, whose settlement may remove a refused parent.
    func dependsOn(_ tables: [String], _ others: [String]) -> Bool {
        let targets = Set(others)
        var seen: Set<String> = []
        var queue = Array(Set(tables))
        while let name = queue.popLast() {
            for dependency in table(name)?.dependencies ?? [] {
                if targets.contains(dependency) { return true }
                if seen.insert(dependency).inserted { queue.append(dependency) }
            }
        }
        return false
    }

    /// Creates missing tables, adds missing columns, and (re)installs the change triggers.
    /// Tables the server no longer syncs keep their rows and lose their triggers; tables of
    /// the app's own are never touched.
    func install(in db: Database, replacing old: LocalSchema?) throws {
        for table in tables {
            if try db.tableExists(table.name) {
                let existing = try db.columns(in: table.name)
                if try needsRebuild(table, existing: existing, in: db) {
                    try rebuild(table, existing: existing, in: db)
                } else {
                    let names = Set(existing.map { $0.name.lowercased() })
                    for column in table.columns where !names.contains(column.name.lowercased()) {
                        try db.execute(sql: "ALTER TABLE \(table.name.quotedDatabaseIdentifier) ADD COLUMN \(definition(of: column, in: table))")
                    }
                }
            } else {
                let columns = table.columns.map { definition(of: $0, in: table) }
                try db.execute(
                    sql: "CREATE TABLE \(table.name.quotedDatabaseIdentifier) (\(columns.joined(separator: ", ")), "
                        + "PRIMARY KEY (\(table.primaryKey.quotedDatabaseIdentifier)))"
                )
            }
            try ChangeTriggers.install(for: table, in: db)
        }
        for gone in old?.tables ?? [] where table(gone.name) == nil {
            try ChangeTriggers.drop(for: gone.name, in: db)
        }
    }

    /// A column's DDL. Local columns are nullable whatever the server says (it fills server
    /// defaults and checks its own constraints); text keys and parent keys compare without
    /// case, so the upper-case `UUID().uuidString` an app writes and the lower-case id the
    /// server returns are one record, and joins between them work.
    func definition(of column: LocalTable.Column, in table: LocalTable) -> String {
        var parts = [column.name.quotedDatabaseIdentifier]
        if !column.affinity.isEmpty { parts.append(column.affinity) }
        if column.affinity == "TEXT", column.name == table.primaryKey || column.name == table.parentKey {
            parts.append("COLLATE NOCASE")
        }
        if let defaultSQL = column.defaultSQL { parts.append("DEFAULT \(defaultSQL)") }
        return parts.joined(separator: " ")
    }
}

extension LocalSchema {
    /// Stored as JSON in the meta table (the server's own words, so nothing is lost).
    struct Stored: Codable {
        var version: Int64
        var hash: String
        var tables: [SyncTable]
    }

    static func load(from db: Database) throws -> (schema: LocalSchema, raw: [SyncTable])? {
        guard let json = try MetaStore.string(.schemaJSON, in: db) else { return nil }
        let stored = try JSONCoding.makeDecoder().decode(Stored.self, from: Data(json.utf8))
        return (try LocalSchema(version: stored.version, hash: stored.hash, tables: stored.tables), stored.tables)
    }

    static func save(version: Int64, hash: String, tables: [SyncTable], in db: Database) throws {
        let data = try JSONCoding.makeEncoder().encode(Stored(version: version, hash: hash, tables: tables))
        try MetaStore.set(.schemaJSON, String(decoding: data, as: UTF8.self), in: db)
        try MetaStore.set(.schemaVersion, String(version), in: db)
        try MetaStore.set(.schemaHash, hash, in: db)
    }
}

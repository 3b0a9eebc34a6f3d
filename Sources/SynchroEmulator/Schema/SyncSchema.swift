import Foundation
import SelfDBSpec

/// Every synced table of the configured specs, with the hash that names this schema.
package struct SyncSchema: Sendable {
    /// Sorted by name, as `/sync/schema` lists them.
    package let tables: [SyncTable]
    /// Parents before their children, then by name: the order snapshots walk (so a client
    /// never receives a child before its parent). `table_idx` of a snapshot cursor indexes it.
    let snapshotOrder: [SyncTable]
    /// See ``CanonicalJSON``.
    package let hash: String
    /// The shared scopes of the tables with `shared:`, sorted by their UTF-8 bytes (the real
    /// server's `ORDER BY scope_id`, in the C collation), without duplicates.
    let sharedScopes: [String]
    private let byName: [String: SyncTable]

    init(tables unsorted: [SyncTable]) {
        tables = unsorted.sorted { $0.name < $1.name }
        byName = Dictionary(tables.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
        let byName = self.byName
        func depth(_ table: SyncTable) -> Int {
            var depth = 0
            var current = table
            // Validation rules out cycles; the bound keeps a bug from hanging the server.
            while let parent = current.parentTable.flatMap({ byName[$0] }), depth < byName.count {
                depth += 1
                current = parent
            }
            return depth
        }
        snapshotOrder = tables.map { (depth($0), $0) }.sorted { ($0.0, $0.1.name) < ($1.0, $1.1.name) }.map(\.1)
        hash = CanonicalJSON.sha256Hex(["tables": .array(tables.map(\.schemaJSON))])
        sharedScopes = Set(tables.compactMap(\.sharedScope)).sorted { Array($0.utf8).lexicographicallyPrecedes(Array($1.utf8)) }
    }

    package func table(_ name: String) -> SyncTable? {
        byName[name]
    }

    /// Compiles each spec with SelfDBSpec and collects its synced tables. Any error in a spec
    /// (or a table name two specs share, or no synced table at all) fails the start, and so
    /// does a scope query that does not run (located at its `sql:`) or, under protocol 1, a
    /// table protocol 1 cannot serve.
    static func load(_ urls: [URL], protocol syncProtocol: SyncProtocol = .two) throws(SyncStartError) -> SyncSchema {
        var tables: [SyncTable] = []
        var diagnostics: [Diagnostic] = []
        for url in urls {
            let output = SpecCompiler.compile(contentsOf: url.path)
            diagnostics += output.diagnostics
            guard output.isValid, let spec = output.spec else { continue }
            tables += spec.tables.compactMap(SyncTable.init)
        }
        if diagnostics.hasErrors {
            throw .specInvalid(diagnostics)
        }
        guard !tables.isEmpty else {
            throw .configurationInvalid("no table of the sync specs has a 'sync:' mapping")
        }
        var seen: Set<String> = []
        for table in tables where !seen.insert(table.name).inserted {
            throw .configurationInvalid("two sync specs declare the table '\(table.name)'")
        }
        if syncProtocol == .one, let table = tables.first(where: { !$0.servesProtocolOne }) {
            let key: String =
                switch table.scopeSource {
                case .shared: "'shared'"
                case .query: "'sql'"
                case .owner, .parent: "'exclude' or 'columns'"
                }
            throw .configurationInvalid(
                "protocol 1 serves only tables synced through 'owner' or 'parent' with all their columns; '\(table.name)' uses \(key), which needs protocol 2 (--sync-protocol 2)"
            )
        }
        if let problem = ScopeQueryTables.reservedNameProblem(in: tables) {
            throw .configurationInvalid(problem)
        }
        let queryProblems = ScopeQueryTables.check(tables)
        if !queryProblems.isEmpty {
            throw .specInvalid(queryProblems)
        }
        return SyncSchema(tables: tables)
    }
}

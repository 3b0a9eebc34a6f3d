import Foundation
import SelfDBSpec

/// Every synced table of the configured specs, with the hash that names this schema.
struct SyncSchema: Sendable {
    /// Sorted by name, as `/sync/schema` lists them.
    let tables: [SyncTable]
    /// Parents before their children, then by name: the order snapshots walk (so a client
    /// never receives a child before its parent). `table_idx` of a snapshot cursor indexes it.
    let snapshotOrder: [SyncTable]
    /// See ``CanonicalJSON``.
    let hash: String
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
    }

    func table(_ name: String) -> SyncTable? {
        byName[name]
    }

    /// Compiles each spec with SelfDBSpec and collects its synced tables. Any error in a spec
    /// (or a table name two specs share, or no synced table at all) fails the start.
    static func load(_ urls: [URL]) throws(SelfDBEmulator.StartError) -> SyncSchema {
        var tables: [SyncTable] = []
        var diagnostics: [Diagnostic] = []
        for url in urls {
            let output = SpecCompiler.compile(contentsOf: url.path)
            diagnostics += output.diagnostics
            guard output.isValid, let spec = output.spec else { continue }
            tables += spec.tables.compactMap(SyncTable.init)
        }
        if diagnostics.hasErrors {
            throw .syncSpecInvalid(diagnostics)
        }
        guard !tables.isEmpty else {
            throw .syncConfigurationInvalid("no table of the sync specs has a 'sync:' mapping")
        }
        var seen: Set<String> = []
        for table in tables where !seen.insert(table.name).inserted {
            throw .syncConfigurationInvalid("two sync specs declare the table '\(table.name)'")
        }
        return SyncSchema(tables: tables)
    }
}

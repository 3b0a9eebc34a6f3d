/// Loads the `sync:` mapping of a table model. Which columns and tables it names is the
/// validator's business; here only the shape is checked.
enum SyncLoader {
    static let keys = ["owner", "parent", "parentKey", "shared", "sql", "exclude", "columns", "updatedAt", "deletedAt", "push"]

    static func load(_ entry: SpecNode.Entry, table: String, reader: inout NodeReader) -> SyncDeclaration? {
        let what = "'sync' of '\(table)'"
        guard let mapping = reader.mapping(entry.value, what) else { return nil }
        reader.checkKeys(mapping, allowed: keys, in: what)
        // Defaults point at `sync:` itself so that "no column 'updated_at'" lands somewhere useful.
        let here = entry.key.location
        let shared = reader.optionalString(mapping, "shared", "'sync.shared'")
        let scopeQuery = reader.optionalString(mapping, "sql", "'sync.sql'")
        var push = SyncDeclaration.defaultPush(shared: shared != nil, scopeQuery: scopeQuery != nil)
        var pushLocation: SourceLocation?
        if let pushEntry = reader.entry(mapping, "push") {
            if let chosen = reader.choice(pushEntry.value, "push policy", as: SyncDeclaration.PushPolicy.self) {
                push = chosen.value
                pushLocation = chosen.location
            }
        }
        return SyncDeclaration(
            location: here,
            owner: reader.optionalString(mapping, "owner", "'sync.owner'"),
            parent: reader.optionalString(mapping, "parent", "'sync.parent'"),
            parentKey: reader.optionalString(mapping, "parentKey", "'sync.parentKey'"),
            shared: shared,
            scopeQuery: scopeQuery,
            excludedColumns: columnList(mapping, "exclude", table: table, reader: &reader),
            syncedColumns: columnList(mapping, "columns", table: table, reader: &reader),
            updatedAt: reader.optionalString(mapping, "updatedAt", "'sync.updatedAt'") ?? Located(SyncDeclaration.defaultUpdatedAt, at: here),
            deletedAt: reader.optionalString(mapping, "deletedAt", "'sync.deletedAt'") ?? Located(SyncDeclaration.defaultDeletedAt, at: here),
            push: push,
            pushLocation: pushLocation
        )
    }

    /// `exclude: [a, b]` or `columns: [a, b]`: a sequence of column names (also written as a
    /// block list). An entry that is not a name is reported and skipped.
    private static func columnList(_ mapping: SpecNode.Mapping, _ key: String, table: String, reader: inout NodeReader) -> SyncDeclaration.ColumnList? {
        guard let entry = reader.entry(mapping, key) else { return nil }
        let what = "'sync.\(key)' of '\(table)'"
        guard case .sequence(let sequence) = entry.value else {
            reader.error("\(what) must be a list of column names, found \(entry.value.kindDescription)", at: entry.value.location)
            return nil
        }
        let names = sequence.items.compactMap { reader.string($0, "a column name in \(what)") }
        return SyncDeclaration.ColumnList(location: entry.key.location, names: names)
    }
}

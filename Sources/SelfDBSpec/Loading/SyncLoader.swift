/// Loads the `sync:` mapping of a table model. Which columns and tables it names is the
/// validator's business; here only the shape is checked.
enum SyncLoader {
    static let keys = ["owner", "parent", "parentKey", "updatedAt", "deletedAt", "push"]

    static func load(_ entry: SpecNode.Entry, table: String, reader: inout NodeReader) -> SyncDeclaration? {
        let what = "'sync' of '\(table)'"
        guard let mapping = reader.mapping(entry.value, what) else { return nil }
        reader.checkKeys(mapping, allowed: keys, in: what)
        // Defaults point at `sync:` itself so that "no column 'updated_at'" lands somewhere useful.
        let here = entry.key.location
        var push = SyncDeclaration.PushPolicy.ownerOnly
        if let pushEntry = reader.entry(mapping, "push") {
            push = reader.choice(pushEntry.value, "push policy", as: SyncDeclaration.PushPolicy.self)?.value ?? .ownerOnly
        }
        return SyncDeclaration(
            location: here,
            owner: reader.optionalString(mapping, "owner", "'sync.owner'"),
            parent: reader.optionalString(mapping, "parent", "'sync.parent'"),
            parentKey: reader.optionalString(mapping, "parentKey", "'sync.parentKey'"),
            updatedAt: reader.optionalString(mapping, "updatedAt", "'sync.updatedAt'") ?? Located(SyncDeclaration.defaultUpdatedAt, at: here),
            deletedAt: reader.optionalString(mapping, "deletedAt", "'sync.deletedAt'") ?? Located(SyncDeclaration.defaultDeletedAt, at: here),
            push: push
        )
    }
}

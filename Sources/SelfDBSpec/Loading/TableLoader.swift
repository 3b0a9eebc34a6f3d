/// Loads one entry of `tables:`.
enum TableLoader {
    static let keys = ["table", "description", "primaryKey", "realtime", "public", "columns", "sync"]
    static let columnKeys = ["type", "nullable", "default", "swift", "description", "primaryKey"]

    static func load(_ entry: SpecNode.Entry, reader: inout NodeReader) -> TableDeclaration? {
        let name = Located(entry.key.text, at: entry.key.location)
        guard let mapping = reader.mapping(entry.value, "table model '\(name.value)'") else { return nil }
        reader.checkKeys(mapping, allowed: keys, in: "table model '\(name.value)'")
        let tableName =
            reader.optionalString(mapping, "table", "'table'")
            ?? Located(NameConversion.snakeCase(name.value), at: name.location)
        var primaryKey = reader.optionalString(mapping, "primaryKey", "'primaryKey'")
        var columns: [ColumnDeclaration] = []
        if let columnsEntry = reader.entry(mapping, "columns"), let columnMapping = reader.mapping(columnsEntry.value, "'columns' of '\(name.value)'") {
            for column in columnMapping.entries {
                guard let loaded = loadColumn(column, reader: &reader) else { continue }
                if loaded.isPrimaryKey {
                    if let existing = primaryKey, existing.value != loaded.column.name.value {
                        reader.error(
                            "table model '\(name.value)' declares two primary keys, '\(existing.value)' and '\(loaded.column.name.value)'; SelfDB tables have a single-column key",
                            at: loaded.column.name.location
                        )
                    }
                    primaryKey = primaryKey ?? loaded.column.name
                }
                columns.append(loaded.column)
            }
        }
        var sync: SyncDeclaration?
        if let syncEntry = reader.entry(mapping, "sync") {
            sync = SyncLoader.load(syncEntry, table: name.value, reader: &reader)
        }
        return TableDeclaration(
            name: name,
            tableName: tableName,
            description: reader.optionalString(mapping, "description", "'description'")?.value,
            primaryKey: primaryKey,
            realtime: reader.bool(mapping, "realtime", "'realtime'", default: false),
            isPublic: reader.bool(mapping, "public", "'public'", default: false),
            columns: columns,
            sync: sync
        )
    }

    private static func loadColumn(_ entry: SpecNode.Entry, reader: inout NodeReader) -> (column: ColumnDeclaration, isPrimaryKey: Bool)? {
        let name = Located(entry.key.text, at: entry.key.location)
        var swiftName = Located(NameConversion.swiftIdentifier(fromWireName: name.value), at: name.location)
        var nullable = true
        var nullableLocation: SourceLocation?
        var defaultValue: Located<LiteralValue>?
        var description: String?
        var isPrimaryKey = false
        let typeNode: SpecNode
        if case .mapping(let mapping) = entry.value {
            reader.checkKeys(mapping, allowed: columnKeys, in: "column '\(name.value)'")
            guard let typeEntry = reader.entry(mapping, "type") else {
                reader.error("column '\(name.value)' needs a 'type'", at: name.location)
                return nil
            }
            typeNode = typeEntry.value
            if let nullableEntry = reader.entry(mapping, "nullable") {
                nullable = reader.bool(nullableEntry.value, "'nullable'") ?? true
                nullableLocation = nullableEntry.key.location
            }
            if let defaultEntry = reader.entry(mapping, "default") {
                defaultValue = reader.literal(defaultEntry.value, "'default'")
            }
            if let override = reader.optionalString(mapping, "swift", "'swift'") { swiftName = override }
            description = reader.optionalString(mapping, "description", "'description'")?.value
            isPrimaryKey = reader.bool(mapping, "primaryKey", "'primaryKey'", default: false)
        } else {
            typeNode = entry.value
        }
        let type = columnType(typeNode, column: name.value, reader: &reader)
        let column = ColumnDeclaration(name: name, type: type, swiftName: swiftName, nullable: nullable, nullableLocation: nullableLocation, defaultValue: defaultValue, description: description)
        return (column, isPrimaryKey)
    }

    private static func columnType(_ node: SpecNode, column: String, reader: inout NodeReader) -> Located<ColumnType>? {
        guard let text = reader.string(node, "the type of column '\(column)'") else { return nil }
        if let type = ColumnType(rawValue: text.value.lowercased()) { return Located(type, at: text.location) }
        let names = ColumnType.allCases.map(\.rawValue)
        let hint =
            Suggestion.closest(to: text.value, in: names).map { "; did you mean '\($0)'?" }
            ?? "; SelfDB column types are \(names.joined(separator: ", "))"
        reader.error("unknown column type '\(text.value)'\(hint)", at: text.location)
        return nil
    }
}

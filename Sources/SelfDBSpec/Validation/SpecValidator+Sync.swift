extension SpecValidator {
    /// Column types a Synchro id or owner can have: the protocol carries them as strings.
    static let stringColumnTypes: Set<ColumnType> = [.text, .varchar, .string, .uuid]
    /// Column types that hold a point in time.
    static let timestampColumnTypes: Set<ColumnType> = [.timestamp, .datetime]

    /// Checks every `sync:` mapping: its scopes from exactly one of `owner`, `parent`, `shared`
    /// and `sql`, the columns it names, the timestamp columns, the parent chain, the push policy
    /// and the column selection.
    mutating func checkSync() {
        let tablesBySQLName = Dictionary(spec.tables.map { ($0.tableName.value, $0) }, uniquingKeysWith: { first, _ in first })
        for table in spec.tables {
            guard let sync = table.sync else { continue }
            checkScopeSource(table, sync, tablesBySQLName: tablesBySQLName)
            checkTimestampColumn(table, sync.updatedAt, key: "updatedAt", isDefault: sync.updatedAt.location == sync.location)
            checkTimestampColumn(table, sync.deletedAt, key: "deletedAt", isDefault: sync.deletedAt.location == sync.location)
            if sync.updatedAt.value == sync.deletedAt.value {
                error("sync of '\(table.name.value)' uses '\(sync.deletedAt.value)' both as 'updatedAt' and as 'deletedAt'; they must be two columns", at: sync.deletedAt.location)
            }
            if let key = table.primaryKey, let column = column(key.value, of: table), let type = column.type, !Self.stringColumnTypes.contains(type.value) {
                error("primary key '\(key.value)' of synced table '\(table.name.value)' is '\(type.value.rawValue)'; Synchro ids are strings, so it must be text or uuid", at: type.location)
            }
            checkParentCycle(table, tablesBySQLName: tablesBySQLName)
            checkPushPolicy(table, sync)
            checkColumnSelection(table, sync)
        }
    }

    /// Exactly one of `owner`, `parent`, `shared` and `sql` says which scopes a row is in.
    private mutating func checkScopeSource(_ table: TableDeclaration, _ sync: SyncDeclaration, tablesBySQLName: [String: TableDeclaration]) {
        let name = table.name.value
        let given = [("owner", sync.owner), ("parent", sync.parent), ("shared", sync.shared), ("sql", sync.scopeQuery)]
            .compactMap { key, value in value.map { (key: key, value: $0) } }
        guard let first = given.first else {
            if let parentKey = sync.parentKey {
                error("'parentKey' of '\(name)' needs 'parent: TABLE', the synced table that owns the rows", at: parentKey.location)
            } else {
                error(
                    "sync of '\(name)' needs one of 'owner: COLUMN' (rows of the user id in that column), 'parent: TABLE' with 'parentKey: COLUMN' (rows in the parent row's scopes), 'shared: NAME' (rows every client gets) and 'sql: QUERY' (rows in the scopes a query returns)",
                    at: sync.location
                )
            }
            return
        }
        for extra in given.dropFirst() {
            if first.key == "owner", extra.key == "parent" {
                error("sync of '\(name)' gives both 'owner' and 'parent'; a synced table is owned through exactly one of them", at: extra.value.location)
            } else {
                error(
                    "sync of '\(name)' gives both '\(first.key)' and '\(extra.key)'; a synced table takes its scopes from exactly one of 'owner', 'parent', 'shared' and 'sql'",
                    at: extra.value.location
                )
            }
        }
        guard given.count == 1 else { return }
        if first.key != "parent", let parentKey = sync.parentKey {
            error("'parentKey' of '\(name)' needs 'parent: TABLE'; a table with '\(first.key)' has no parent", at: parentKey.location)
        }
        switch first.key {
        case "owner":
            if let column = checkNamedColumn(first.value, of: table, role: "owner"), let type = column.type, !Self.stringColumnTypes.contains(type.value) {
                error("owner column '\(first.value.value)' of '\(name)' is '\(type.value.rawValue)'; it holds a user id, so it must be text or uuid", at: type.location)
            }
        case "parent":
            if let parentKey = sync.parentKey {
                checkNamedColumn(parentKey, of: table, role: "parent key")
            } else {
                error("'parent' of '\(name)' needs 'parentKey: COLUMN', the column that holds the parent row's key", at: first.value.location)
            }
            checkParentExists(first.value, tablesBySQLName: tablesBySQLName)
        case "shared":
            checkSharedScope(first.value, of: table)
        default:
            checkScopeQuery(first.value, of: table)
        }
    }

    private mutating func checkParentExists(_ parent: Located<String>, tablesBySQLName: [String: TableDeclaration]) {
        if let target = tablesBySQLName[parent.value] {
            if target.sync == nil {
                error("sync parent '\(parent.value)' is not a synced table; add 'sync:' to '\(target.name.value)'", at: parent.location)
            }
        } else if let model = spec.tables.first(where: { $0.name.value == parent.value }) {
            // Parents are named as on the wire (`parent_table`), by SQL name.
            error("sync parent '\(parent.value)' is a table model key; name its SQL table '\(model.tableName.value)'", at: parent.location)
        } else {
            let synced = spec.tables.filter { $0.sync != nil }.map(\.tableName.value)
            let hint = Suggestion.didYouMean(parent.value, in: synced)
            error("sync parent '\(parent.value)' is not a table of this spec\(hint)", at: parent.location)
        }
    }

    private mutating func checkTimestampColumn(_ table: TableDeclaration, _ name: Located<String>, key: String, isDefault: Bool) {
        guard let column = column(name.value, of: table) else {
            if isDefault {
                error("synced table '\(table.name.value)' has no '\(name.value)' column; add it as a timestamp or name another with '\(key):'", at: name.location)
            } else {
                let hint = Suggestion.didYouMean(name.value, in: table.columns.map(\.name.value))
                error("sync column '\(name.value)' is not a column of '\(table.name.value)'\(hint)", at: name.location)
            }
            return
        }
        if let type = column.type, !Self.timestampColumnTypes.contains(type.value) {
            error("sync column '\(name.value)' of '\(table.name.value)' is '\(type.value.rawValue)'; '\(key)' needs a timestamp or datetime column", at: type.location)
        }
    }

    /// The column `name` refers to, or a diagnostic with a suggestion.
    @discardableResult
    mutating func checkNamedColumn(_ name: Located<String>, of table: TableDeclaration, role: String) -> ColumnDeclaration? {
        if let found = column(name.value, of: table) { return found }
        let hint = Suggestion.didYouMean(name.value, in: table.columns.map(\.name.value))
        error("sync \(role) column '\(name.value)' is not a column of '\(table.name.value)'\(hint)", at: name.location)
        return nil
    }

    func column(_ name: String, of table: TableDeclaration) -> ColumnDeclaration? {
        table.columns.first { $0.name.value == name }
    }

    /// Reports a table whose chain of parents leads back to itself (each table on the cycle
    /// gets its own finding, at its `parent:`).
    private mutating func checkParentCycle(_ table: TableDeclaration, tablesBySQLName: [String: TableDeclaration]) {
        guard let firstParent = table.sync?.parent else { return }
        var chain = [table.tableName.value]
        var current = firstParent.value
        while let next = tablesBySQLName[current], next.sync != nil {
            chain.append(current)
            if current == table.tableName.value {
                error("sync parents of '\(table.name.value)' form a cycle: \(chain.joined(separator: " → ")); the top table needs 'owner:', 'shared:' or 'sql:'", at: firstParent.location)
                return
            }
            guard !chain.dropLast().contains(current), let parent = next.sync?.parent?.value else { return }
            current = parent
        }
    }
}

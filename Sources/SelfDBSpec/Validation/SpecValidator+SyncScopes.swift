import Foundation

extension SpecValidator {
    /// The prefix of the users' own scopes (`user:<id>`), which a shared scope may not use.
    static let userScopePrefix = "user:"

    /// A shared scope id is not blank and does not start with `user:`, as Synchro's
    /// `synchro_register_shared_scope` requires (it trims the id before both checks).
    mutating func checkSharedScope(_ scope: Located<String>, of table: TableDeclaration) {
        let trimmed = scope.value.trimmingCharacters(in: .whitespacesAndNewlines)
        if trimmed.isEmpty {
            error("shared scope of '\(table.name.value)' is blank; name it, e.g. 'global'", at: scope.location)
        } else if trimmed.hasPrefix(Self.userScopePrefix) {
            error(
                "shared scope '\(scope.value)' of '\(table.name.value)' starts with '\(Self.userScopePrefix)', which is reserved for each user's own scope; name it without it, e.g. 'global'",
                at: scope.location
            )
        }
    }

    /// The query itself is run by the emulator when it starts (it is SQLite there); here only
    /// what needs no database: that there is a query.
    mutating func checkScopeQuery(_ query: Located<String>, of table: TableDeclaration) {
        if query.value.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty {
            error("'sql' of '\(table.name.value)' is blank; give the query that returns the scope ids of the record whose key is $1", at: query.location)
        }
    }

    /// `owner_only` needs a table with an owner (`owner`, `parent`). `enabled` suits every
    /// table: on one with an owner it opts out of the ownership check, so any signed-in user
    /// may write any row, as on a bare protocol-2 server (protocol 1 forces ownership anyway).
    mutating func checkPushPolicy(_ table: TableDeclaration, _ sync: SyncDeclaration) {
        guard let location = sync.pushLocation, sync.push == .ownerOnly else { return }
        if sync.shared != nil || sync.scopeQuery != nil {
            let key = sync.shared != nil ? "shared" : "sql"
            error("push 'owner_only' needs an owner, and a table with '\(key)' has none; write 'push: enabled' to let every client write '\(table.name.value)', or 'disabled'", at: location)
        }
    }

    /// `exclude` and `columns` are exclusive; each names existing columns once; the primary key,
    /// the timestamp columns and the columns a row's scope is read from always sync; a column
    /// left out must be fillable without the client (nullable or with a default).
    mutating func checkColumnSelection(_ table: TableDeclaration, _ sync: SyncDeclaration) {
        let name = table.name.value
        if let excluded = sync.excludedColumns, let listed = sync.syncedColumns {
            error("sync of '\(name)' gives both 'exclude' and 'columns'; list the columns that sync or the ones left out, not both", at: max(excluded.location, listed.location))
            return
        }
        guard let list = sync.excludedColumns ?? sync.syncedColumns else { return }
        let key = sync.excludedColumns != nil ? "exclude" : "columns"
        var seen: Set<String> = []
        for item in list.names {
            if !seen.insert(item.value).inserted {
                error("'\(key)' of '\(name)' lists '\(item.value)' twice", at: item.location)
            } else if column(item.value, of: table) == nil {
                let hint = Suggestion.didYouMean(item.value, in: table.columns.map(\.name.value))
                error("'\(key)' of '\(name)' names '\(item.value)', which is not a column of '\(name)'\(hint)", at: item.location)
            }
        }
        let unsynced =
            sync.excludedColumns != nil
            ? table.columns.filter { seen.contains($0.name.value) }
            : table.columns.filter { !seen.contains($0.name.value) }
        let location: (ColumnDeclaration) -> SourceLocation = { column in
            list.names.first { $0.value == column.name.value }?.location ?? list.location
        }
        for column in unsynced {
            let columnName = column.name.value
            if let role = requiredRole(of: columnName, table: table, sync: sync) {
                error("'\(key)' of '\(name)' leaves out '\(columnName)', \(role); it always syncs", at: location(column))
            } else if !column.nullable, column.defaultValue == nil {
                error(
                    "'\(key)' of '\(name)' leaves out '\(columnName)', which is not nullable and has no default, so no pushed insert could fill it; make it nullable or give it a default",
                    at: location(column)
                )
            }
        }
    }

    /// Why `column` must sync, if it must.
    private func requiredRole(of column: String, table: TableDeclaration, sync: SyncDeclaration) -> String? {
        if column == table.primaryKey?.value { return "the primary key" }
        if column == sync.updatedAt.value { return "the 'updatedAt' column" }
        if column == sync.deletedAt.value { return "the 'deletedAt' column" }
        if column == sync.owner?.value { return "the owner column, which a row's scope is read from" }
        if column == sync.parentKey?.value { return "the parent key, which a row's scope is read through" }
        return nil
    }
}

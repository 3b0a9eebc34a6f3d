import SelfDBSpec

/// Where a synced table's rows get their scopes from: the spec's `owner:`, `parent:`,
/// `shared:` or `sql:` (exactly one, which validation guarantees).
enum SyncScopeSource: Sendable {
    /// `user:<value of the column>`, lower-cased.
    case owner(column: String)
    /// The parent row's scopes: the row of `table` whose key is in the `key` column.
    case parent(table: String, key: String)
    /// The one shared scope every client gets.
    case shared(String)
    /// The scope ids the query returns for the record.
    case query(ScopeQuery)

    init?(_ sync: SyncDeclaration) {
        if let owner = sync.owner {
            self = .owner(column: owner.value)
        } else if let parent = sync.parent, let key = sync.parentKey {
            self = .parent(table: parent.value, key: key.value)
        } else if let shared = sync.shared {
            self = .shared(shared.value)
        } else if let query = sync.scopeQuery {
            self = .query(ScopeQuery(sql: query.value, location: query.location))
        } else {
            return nil
        }
    }
}

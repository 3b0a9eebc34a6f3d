/// How a table model takes part in Synchro sync (`sync:` under a table).
///
/// The keys say which scopes a row belongs to, which is what decides the devices it reaches:
/// through a column that holds the owner's user id (`owner:`), through a parent synced table
/// (`parent:` with `parentKey:`), through a shared scope every client gets (`shared:`), or
/// through an SQL query that returns the scope ids of a record (`sql:`). Exactly one of them is
/// given. `exclude:` or `columns:` narrows the columns that sync.
public struct SyncDeclaration: Hashable, Sendable {
    /// Who may push changes to the table.
    public enum PushPolicy: String, CaseIterable, Hashable, Sendable {
        /// The owner pushes creates, updates and deletes (tables with `owner` or `parent`);
        /// a write to another user's row, or one that gives a row to another user, is refused.
        case ownerOnly = "owner_only"
        /// Every client pushes creates, updates and deletes: the default for tables with
        /// `shared` or `sql`, which have no owner. On a table with `owner` or `parent` it lifts
        /// the ownership check on protocol 2 (any signed-in user writes any row, as on a bare
        /// Synchro 0.3 server); protocol 1 forces ownership whatever the policy.
        case enabled
        /// Read-only for clients: every pushed change is rejected.
        case disabled
    }

    /// A list of column names under `exclude:` or `columns:`.
    public struct ColumnList: Hashable, Sendable {
        /// Where the key (`exclude` or `columns`) was written.
        public var location: SourceLocation
        /// The names in file order, each where it was written.
        public var names: [Located<String>]

        /// Creates a column list.
        public init(location: SourceLocation, names: [Located<String>]) {
            self.location = location
            self.names = names
        }
    }

    /// Where `sync:` was written.
    public var location: SourceLocation
    /// The column that holds the owner's user id; the server forces it to the caller.
    public var owner: Located<String>?
    /// The SQL table name (`table:`) of the parent synced table.
    public var parent: Located<String>?
    /// The column of this table that holds the parent row's primary key.
    public var parentKey: Located<String>?
    /// The shared scope every row belongs to (`shared:`); every client gets it.
    public var shared: Located<String>?
    /// The query that returns the scope ids of the record whose key is `$1` (`sql:`).
    public var scopeQuery: Located<String>?
    /// The columns left out of sync (`exclude:`); nil when absent.
    public var excludedColumns: ColumnList?
    /// The only columns that sync (`columns:`); nil when absent.
    public var syncedColumns: ColumnList?
    /// The last-modified timestamp column; located at `sync:` when defaulted.
    public var updatedAt: Located<String>
    /// The soft-delete timestamp column; located at `sync:` when defaulted.
    public var deletedAt: Located<String>
    /// Who may push: `owner_only` unless given, `disabled` for a table with `shared`,
    /// `enabled` for one with `sql`.
    public var push: PushPolicy
    /// Where `push:` was written; nil when it was left out.
    public var pushLocation: SourceLocation?

    /// The default last-modified column.
    public static let defaultUpdatedAt = "updated_at"
    /// The default soft-delete column.
    public static let defaultDeletedAt = "deleted_at"

    /// Creates a sync declaration.
    public init(
        location: SourceLocation,
        owner: Located<String>?,
        parent: Located<String>?,
        parentKey: Located<String>?,
        shared: Located<String>? = nil,
        scopeQuery: Located<String>? = nil,
        excludedColumns: ColumnList? = nil,
        syncedColumns: ColumnList? = nil,
        updatedAt: Located<String>,
        deletedAt: Located<String>,
        push: PushPolicy,
        pushLocation: SourceLocation? = nil
    ) {
        self.location = location
        self.owner = owner
        self.parent = parent
        self.parentKey = parentKey
        self.shared = shared
        self.scopeQuery = scopeQuery
        self.excludedColumns = excludedColumns
        self.syncedColumns = syncedColumns
        self.updatedAt = updatedAt
        self.deletedAt = deletedAt
        self.push = push
        self.pushLocation = pushLocation
    }

    /// The push policy a table gets when `push:` is left out.
    public static func defaultPush(shared: Bool, scopeQuery: Bool) -> PushPolicy {
        if shared { return .disabled }
        return scopeQuery ? .enabled : .ownerOnly
    }
}

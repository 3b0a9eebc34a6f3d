/// How a table model takes part in Synchro sync (`sync:` under a table).
///
/// A synced table is owned either directly, through a column that holds the owner's user id
/// (`owner:`), or through a parent synced table (`parent:` with `parentKey:`), so every row
/// belongs to exactly one user.
public struct SyncDeclaration: Hashable, Sendable {
    /// Who may push changes to the table.
    public enum PushPolicy: String, CaseIterable, Hashable, Sendable {
        /// The owner pushes creates, updates and deletes.
        case ownerOnly = "owner_only"
        /// Read-only for clients: every pushed change is rejected with `table_read_only`.
        case disabled
    }

    /// Where `sync:` was written.
    public var location: SourceLocation
    /// The column that holds the owner's user id; the server forces it to the caller.
    public var owner: Located<String>?
    /// The SQL table name (`table:`) of the parent synced table.
    public var parent: Located<String>?
    /// The column of this table that holds the parent row's primary key.
    public var parentKey: Located<String>?
    /// The last-modified timestamp column; located at `sync:` when defaulted.
    public var updatedAt: Located<String>
    /// The soft-delete timestamp column; located at `sync:` when defaulted.
    public var deletedAt: Located<String>
    /// Who may push.
    public var push: PushPolicy

    /// The default last-modified column.
    public static let defaultUpdatedAt = "updated_at"
    /// The default soft-delete column.
    public static let defaultDeletedAt = "deleted_at"

    /// Creates a sync declaration.
    public init(location: SourceLocation, owner: Located<String>?, parent: Located<String>?, parentKey: Located<String>?, updatedAt: Located<String>, deletedAt: Located<String>, push: PushPolicy) {
        self.location = location
        self.owner = owner
        self.parent = parent
        self.parentKey = parentKey
        self.updatedAt = updatedAt
        self.deletedAt = deletedAt
        self.push = push
    }
}

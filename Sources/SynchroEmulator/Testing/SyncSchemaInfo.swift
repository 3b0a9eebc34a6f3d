/// The schema the sync server serves; see `SelfDBEmulator.syncSchema`.
public struct SyncSchemaInfo: Sendable, Equatable {
    /// `schema_version`: grows each time the emulator starts with a differently hashed schema.
    public var version: Int64
    /// `schema_hash`: SHA-256 hex of the canonical `{"tables":[...]}`.
    public var hash: String
    /// The synced tables' SQL names, sorted.
    public var tables: [String]

    package init(version: Int64, hash: String, tables: [String]) {
        self.version = version
        self.hash = hash
        self.tables = tables
    }
}

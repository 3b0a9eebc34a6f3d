/// Where a cached item stands with the server: in sync, or waiting for an optimistic
/// mutation to be confirmed.
public enum ItemState: String, Sendable, Hashable, Codable, CaseIterable {
    /// In sync with the last server answer.
    case normal
    /// Created locally; the insert has not been confirmed yet.
    case inserting
    /// Changed locally; the update has not been confirmed yet.
    case updating
    /// Deleted locally; the delete has not been confirmed yet (the item stays visible,
    /// so an interface can dim it, until the server agrees).
    case deleting
}

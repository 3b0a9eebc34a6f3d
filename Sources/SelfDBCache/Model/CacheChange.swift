import SelfDB

/// A change to an item made elsewhere (another client, another device), as a realtime
/// stream reports it. `SelfDBCache.apply(change:)` folds it into the cache.
public enum CacheChange<Row: CacheableModel>: Sendable, Hashable {
    /// A row was created.
    case insert(Row)
    /// A row was changed.
    case update(Row)
    /// A row was deleted.
    case delete(Row)
}

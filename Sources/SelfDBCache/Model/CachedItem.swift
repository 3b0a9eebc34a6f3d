import SelfDB

/// A row read from the cache with its mutation state.
public struct CachedItem<Row: CacheableModel>: Sendable, Hashable, Identifiable {
    /// The row as last written (optimistically or by the server).
    public var row: Row
    /// Whether a mutation of it is waiting for the server.
    public var state: ItemState
    /// The item's key within its type (`cacheKey`; for a table model, its primary key as text).
    public var id: String

    /// Creates an item.
    public init(row: Row, state: ItemState, id: String) {
        self.row = row
        self.state = state
        self.id = id
    }
}

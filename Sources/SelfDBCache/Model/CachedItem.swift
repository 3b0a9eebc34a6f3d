import SelfDB
/// A row read from the cache with its mutation state.
public struct CachedItem<Row: TableModel>: Sendable, Hashable, Identifiable {
    /// The row as last written (optimistically or by the server).
    public var row: Row
    /// Whether a mutation of it is waiting for the server.
    public var state: ItemState
    /// The row's primary key as text: the cache key within its type.
    public var id: String

    /// Creates an item.
    public init(row: Row, state: ItemState, id: String) {
        self.row = row
        self.state = state
        self.id = id
    }
}

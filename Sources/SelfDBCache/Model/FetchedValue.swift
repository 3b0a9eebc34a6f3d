import SelfDB

/// What a fetcher holds: nothing yet, an empty result, or items.
public enum FetchedValue<Row: CacheableModel>: Sendable, Hashable {
    /// Nothing read yet (neither from the cache nor from the server).
    case initial
    /// Read, and there is nothing.
    case empty
    /// Read: the items in view order.
    case fetched([CachedItem<Row>])

    /// The items (none for `initial` and `empty`).
    public var items: [CachedItem<Row>] {
        if case .fetched(let items) = self { items } else { [] }
    }

    init(_ items: [CachedItem<Row>]) {
        self = items.isEmpty ? .empty : .fetched(items)
    }
}

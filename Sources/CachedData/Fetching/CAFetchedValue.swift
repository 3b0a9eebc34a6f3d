/// What a fetcher holds: nothing yet, an empty result, or items.
public enum CAFetchedValue<Item: CAItem>: Sendable, Hashable {
    /// Nothing read yet, neither from the cache nor from the server.
    case initial
    /// Read, and there is nothing.
    case empty
    /// The items, in view order, each with its `caState`.
    case fetched([Item])

    /// The items (none for `initial` and `empty`).
    public var items: [Item] {
        if case .fetched(let items) = self { items } else { [] }
    }
}

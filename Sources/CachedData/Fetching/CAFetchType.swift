/// What a fetcher fetches.
public enum CAFetchType: Sendable, Hashable {
    /// A list, cached as the view `viewId` (unique within the item type; not empty, not
    /// starting with `#`). `allPages` fetches every page on each load instead of one at a time.
    case fetchAll(viewId: String, allPages: Bool)
    /// One item: the one with this `idString`, picked out of the pages the item type's
    /// `fetch(params:)` returns (following pages until it is found).
    case fetchOne(itemId: String)
}

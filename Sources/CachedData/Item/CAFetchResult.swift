/// One page of items from ``CAItem/fetch(params:)``, and what comes after it.
public struct CAFetchResult<Item: Sendable, PageInfo: CAItemPageInfo>: Sendable {
    /// The items, in the order the server lists them.
    public let items: [Item]
    /// Whether there are more pages, and the cursor of the next.
    public let pageInfo: PageInfo

    /// The first item, for fetches of one item.
    public var item: Item? { items.first }

    /// A page.
    public init(items: [Item], pageInfo: PageInfo) {
        self.items = items
        self.pageInfo = pageInfo
    }
}

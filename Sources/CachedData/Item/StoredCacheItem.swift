import Foundation

/// An item as the cache stores it: the row ``CAItem/toCacheItem(state:)`` builds.
///
/// The field names are the original CachedData schema's, so `toCacheItem` implementations
/// written for it compile unchanged (hence snake case, exempt from the formatter's naming rule).
public struct StoredCacheItem: Codable, Hashable, Sendable {
    /// The item's key (``CAItem/idString``).
    public var id: String
    /// The item's type (``CAItem/typeName``).
    // swift-format-ignore: AlwaysUseLowerCamelCase
    public var type_name: String
    /// When the item was cached.
    // swift-format-ignore: AlwaysUseLowerCamelCase
    public var created_at: Date
    /// The item, as JSON text.
    // swift-format-ignore: AlwaysUseLowerCamelCase
    public var json_string: String
    /// Where the item stands with the server.
    public var state: CAItemState

    /// A stored item.
    public init(id: String, type_name: String, created_at: Date, json_string: String, state: CAItemState) {
        self.id = id
        self.type_name = type_name
        self.created_at = created_at
        self.json_string = json_string
        self.state = state
    }
}

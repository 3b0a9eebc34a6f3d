import SelfDBCache
import SelfDBRuntime

/// A `CAItem` as the cache engine (`SelfDBCache`) holds it: stored as the JSON text the item's
/// own ``CAItem/toCacheItem(state:)`` writes, read back with its
/// ``CAItem/init(fromCacheJSONString:state:)``, so an app's custom coding is respected.
///
/// The state is not part of the stored text: the engine keeps it beside the item and the
/// fetcher sets ``CAItem/caState`` from it.
struct CacheEntry<Item: CAItem>: CacheableModel {
    var item: Item

    /// `ca:` and the item's type name: never a table name or a generated model's namespace.
    static var cacheTypeName: String { "ca:\(Item.typeName)" }
    var cacheKey: String { item.idString }

    init(_ item: Item) { self.item = item }

    init(from decoder: any Decoder) throws {
        let text = try decoder.singleValueContainer().decode(String.self)
        item = Item(fromCacheJSONString: text, state: .normal)
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(item.toCacheItem(state: .normal).json_string)
    }

    /// The item with the state the cache holds for it.
    static func item(_ cached: CachedItem<CacheEntry<Item>>) -> Item {
        var item = cached.row.item
        item.caState = CAItemState(cached.state)
        return item
    }
}

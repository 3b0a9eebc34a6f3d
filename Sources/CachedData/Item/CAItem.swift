import Foundation

/// A model that fetches itself and lives in the cache: the heart of CachedData.
///
/// Conform your models to it (see the `Post` example in the README): the cache stores each
/// item as the JSON text of ``toCacheItem(state:)`` and reads it back with
/// ``init(fromCacheJSONString:state:)``, fetches pages with ``fetch(params:)`` and tracks
/// the item's mutation state in ``caState``.
public protocol CAItem: Codable, Sendable, Identifiable, Hashable {
    /// How a fetch says whether there are more pages, and where the next one starts.
    associatedtype PageInfo: CAItemPageInfo
    /// What a fetch is asked with (filters, and the cursor of the page).
    associatedtype Params: CAItemParams

    /// The item's key, unique within ``typeName``.
    var idString: String { get }
    /// Where the item stands with the server; the cache sets it on every item it hands out.
    var caState: CAItemState { get set }

    /// The item as the cache stores it.
    func toCacheItem(state: CAItemState) -> StoredCacheItem
    /// The item from the JSON text ``toCacheItem(state:)`` stored.
    init(fromCacheJSONString string: String, state: CAItemState)
    /// An empty item (what `CAFetcher.item` shows before the item is known).
    init()

    /// The name items of this type are stored under; unique among your item types.
    static var typeName: String { get }
    /// Fetches one page of items from your server.
    static func fetch(params: Params) async throws -> CAFetchResult<Self, PageInfo>
}

/// An item the app can insert, update and delete; the handlers (``CAHandlers``) call these
/// after applying the change to the cache, and roll the cache back if they throw a refusal.
///
/// Throw `.caught(error)` with the transport's error (a `URLError` such as
/// `.notConnectedToInternet` or `.timedOut`) when the server could not be reached: the
/// mutation then stays queued and is sent again later. `.failed`, or any other error, is a
/// refusal.
public protocol CAMutableItem: CAItem {
    /// Sends the item's changes to the server.
    func update() async throws(CAMutationError)
    /// Creates the item on the server.
    func insert() async throws(CAMutationError)
    /// Deletes the item on the server.
    func delete() async throws(CAMutationError)
}

/// What a page of a fetch says about the pages after it.
public protocol CAItemPageInfo: Sendable {
    /// Whether the server has more pages.
    var hasNext: Bool { get }
    /// The cursor the next page starts after.
    var endCursor: String? { get }
}

/// What a fetch is asked with.
public protocol CAItemParams: Sendable {
    /// These parameters, asking for the page after `cursor`.
    func setEndCursor(_ cursor: String?) -> Self
}

import SelfDBCache

/// A ``CAFetchType`` as the engine's fetch strategy over the item type's `fetch(params:)`.
enum CAFetchStrategy<Item: CAItem> {
    static func make(_ type: CAFetchType, params: Item.Params) -> FetchStrategy<CacheEntry<Item>> {
        switch type {
        case .fetchAll(let viewId, let allPages):
            // The engine keeps the cursor with the view, so `load()` continues after a restart.
            .cursor(view: viewId, allPages: allPages) { cursor, _ in
                let result = try await Item.fetch(params: cursor.map { params.setEndCursor($0) } ?? params)
                return CursorPage(rows: result.items.map(CacheEntry.init), next: result.pageInfo.endCursor, hasNext: result.pageInfo.hasNext)
            }
        case .fetchOne(let itemId):
            .one(id: itemId) { id in try await find(id, params: params) }
        }
    }

    /// The item with `idString == id`, looked for page by page; nil when no page has it
    /// (the cache then drops it, unless a mutation of it is pending). A cursor that comes
    /// back again ends the search rather than looping.
    private static func find(_ id: String, params: Item.Params) async throws -> CacheEntry<Item>? {
        var request = params
        var cursors = Set<String>()
        while true {
            let result = try await Item.fetch(params: request)
            if let item = result.items.first(where: { $0.idString == id }) { return CacheEntry(item) }
            guard result.pageInfo.hasNext, let cursor = result.pageInfo.endCursor, cursors.insert(cursor).inserted else { return nil }
            request = params.setEndCursor(cursor)
        }
    }
}

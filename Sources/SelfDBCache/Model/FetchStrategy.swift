import Foundation
import SelfDB

/// What a fetcher fetches: a named view (an ordered list of items, one of many views of the
/// type) filled page by page, or one item.
///
/// Table models fetch through the generated table client (`.all`, `.one(id:)`). Any other
/// `CacheableModel` — the generated models of endpoints such as buckets or users — fetches
/// through a loader that calls its endpoint (`.pages`, `.cursor`, `.one(id:fetch:)`).
public struct FetchStrategy<Item: CacheableModel>: Sendable {
    /// How the items are fetched.
    enum Source: Sendable {
        /// Numbered pages from 1. `matches` hides cached items the query's filters exclude.
        case pages(view: String, pageSize: Int, allPages: Bool, fetch: PageLoader, matches: @Sendable (Item) -> Bool)
        /// Pages chained by an opaque cursor, kept with the view.
        case cursor(view: String, pageSize: Int, allPages: Bool, fetch: @Sendable (_ cursor: String?, _ pageSize: Int) async throws -> CursorPage<Item>)
        /// One item by key; the loader answers nil when the server no longer has it.
        case one(id: String, fetch: @Sendable (SelfDB?, String) async throws -> Item?)
    }

    /// A page of rows from the server for (client, page, page size), and whether there are
    /// more. The client is nil in a cache opened without one; table loaders then refuse.
    typealias PageLoader = @Sendable (SelfDB?, _ page: Int, _ pageSize: Int) async throws -> (rows: [Item], hasNext: Bool)

    let source: Source
    /// A mistake in the arguments, reported by `setup()` (a strategy is built in expressions,
    /// where throwing would be awkward).
    let problem: CacheError?

    /// The name of the view, or nil for a single item.
    public var view: String? {
        switch source {
        case .pages(let view, _, _, _, _), .cursor(let view, _, _, _): view
        case .one: nil
        }
    }

    /// The key of the item of a single-item strategy.
    public var itemID: String? {
        if case .one(let id, _) = source { id } else { nil }
    }

    /// A named view filled by numbered pages from `fetch`, for endpoints that page by number
    /// or by skip and limit: `fetch(page, pageSize)` gets pages from 1 on. A page shorter than
    /// `pageSize` is the last one.
    ///
    /// ```swift
    /// .pages(view: "buckets") { page, size in
    ///     try await selfdb.storage.buckets.list(skip: (page - 1) * size, limit: size)
    /// }
    /// ```
    ///
    /// - Parameters:
    ///   - view: the view's name, unique within `Item`'s type; not empty, not starting with `#`.
    ///   - pageSize: rows per page, 1 or more.
    ///   - allPages: fetch every page on `load()` rather than one at a time.
    ///   - fetch: loads page `page` (1-based) of `pageSize` rows from the server.
    public static func pages(
        view: String,
        pageSize: Int = 50,
        allPages: Bool = false,
        fetch: @escaping @Sendable (_ page: Int, _ pageSize: Int) async throws -> [Item]
    ) -> Self {
        Self(
            source: .pages(
                view: view,
                pageSize: pageSize,
                allPages: allPages,
                fetch: { _, page, size in
                    let rows = try await fetch(page, size)
                    return (rows, rows.count >= size)
                },
                matches: { _ in true }
            ),
            problem: checkPaged(view: view, pageSize: pageSize)
        )
    }

    /// A named view paged by an opaque cursor, for endpoints that page that way: `fetch`
    /// gets nil for the first page and then the cursor it returned last, and answers with a
    /// page of rows and the next cursor (nil at the end). The cursor is kept with the view, so
    /// `loadMore()` continues after a restart.
    ///
    /// - Parameters:
    ///   - view: the view's name, unique within `Item`'s type; not empty, not starting with `#`.
    ///   - pageSize: rows per page, 1 or more.
    ///   - allPages: fetch every page on `load()` rather than one at a time; a server that
    ///     answers "more" with the cursor it was given fails the load rather than looping.
    ///   - fetch: loads the page after `cursor` (nil: the first page) from the server.
    public static func cursor(
        view: String,
        pageSize: Int = 50,
        allPages: Bool = false,
        fetch: @escaping @Sendable (_ cursor: String?, _ pageSize: Int) async throws -> CursorPage<Item>
    ) -> Self {
        Self(source: .cursor(view: view, pageSize: pageSize, allPages: allPages, fetch: fetch), problem: checkPaged(view: view, pageSize: pageSize))
    }

    /// One item by key, fetched by `fetch` (nil when the server no longer has it, which
    /// removes it from the cache).
    ///
    /// ```swift
    /// .one(id: bucket.cacheKey) { _ in try await selfdb.storage.buckets.get(bucket.id) }
    /// ```
    public static func one(id: String, fetch: @escaping @Sendable (_ id: String) async throws -> Item?) -> Self {
        Self(source: .one(id: id, fetch: { _, id in try await fetch(id) }), problem: checkItem(id: id))
    }

    /// A view fed by a loader: a valid name and a page size of 1 or more.
    private static func checkPaged(view: String, pageSize: Int) -> CacheError? {
        ViewName.problem(view) ?? (pageSize >= 1 ? nil : .invalidArgument("page size must be 1 or more, got \(pageSize)"))
    }

    static func checkItem(id: String) -> CacheError? {
        id.isEmpty ? .invalidArgument("an item id must not be empty") : nil
    }
}

/// One page of a cursor-paged fetch.
public struct CursorPage<Item: CacheableModel>: Sendable {
    /// The rows, in view order.
    public var rows: [Item]
    /// The cursor of the next page; nil when this is the last (or the next page is asked
    /// for without a cursor).
    public var next: String?
    /// Whether the server has more pages.
    public var hasNext: Bool

    /// A page; there are more pages when there is a next cursor.
    public init(rows: [Item], next: String?) {
        self.init(rows: rows, next: next, hasNext: next != nil)
    }

    /// A page of an endpoint that says whether there are more pages apart from the cursor
    /// (as GraphQL's `pageInfo { hasNextPage endCursor }` does).
    public init(rows: [Item], next: String?, hasNext: Bool) {
        self.rows = rows
        self.next = next
        self.hasNext = hasNext
    }
}

/// View names: `#` starts the names the cache gives single items' views.
enum ViewName {
    static func problem(_ view: String) -> CacheError? {
        view.isEmpty || view.hasPrefix("#") ? .invalidArgument("a view name must not be empty or start with '#', got '\(view)'") : nil
    }
}

import SelfDB
import Foundation

/// What a fetcher fetches.
public enum FetchStrategy<Row: TableModel>: Sendable {
    /// A named view: an ordered list of item ids, one of many views of `Row`.
    ///
    /// - Parameters:
    ///   - view: the view's name, unique within `Row`'s type.
    ///   - query: search and sort sent to the server; its `where` filters are applied to
    ///     the cached items too. Its page and page size are ignored (the fetcher pages).
    ///   - pageSize: rows per page, 1–1000.
    ///   - allPages: fetch every page on `load()` rather than one at a time.
    case all(view: String, query: TableQuery<Row> = TableQuery(), pageSize: Int = 50, allPages: Bool = false)
    /// A named view paged by an opaque cursor, for endpoints that page that way: `fetch`
    /// gets nil for the first page and then the cursor it returned last, and answers with a
    /// page of rows and the next cursor (nil at the end). The cursor is kept with the view, so
    /// `loadMore()` continues after a restart.
    case cursor(view: String, pageSize: Int = 50, fetch: @Sendable (_ cursor: String?, _ pageSize: Int) async throws -> CursorPage<Row>)
    /// One item by primary key (its text form, e.g. a UUID string).
    case one(id: String)
}

/// One page of a cursor-paged fetch.
public struct CursorPage<Row: TableModel>: Sendable {
    /// The rows, in view order.
    public var rows: [Row]
    /// The cursor of the next page; nil when this is the last.
    public var next: String?

    /// A page.
    public init(rows: [Row], next: String?) {
        self.rows = rows
        self.next = next
    }
}

extension FetchStrategy {
    /// One item by UUID primary key (the cache keys UUIDs by `uuidString`).
    public static func one(_ id: UUID) -> Self { .one(id: id.uuidString) }
}

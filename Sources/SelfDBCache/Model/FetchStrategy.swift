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
    /// One item by primary key (its text form, e.g. a UUID string).
    case one(id: String)
}

extension FetchStrategy {
    /// One item by UUID primary key (the cache keys UUIDs by `uuidString`).
    public static func one(_ id: UUID) -> Self { .one(id: id.uuidString) }
}

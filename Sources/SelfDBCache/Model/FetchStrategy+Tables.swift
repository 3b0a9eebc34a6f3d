import Foundation
import SelfDB

extension FetchStrategy where Item: TableModel {
    /// A named view of table rows, fetched page by page through the generated table client.
    ///
    /// - Parameters:
    ///   - view: the view's name, unique within the table; not empty, not starting with `#`.
    ///   - query: search and sort sent to the server; its `where` filters are applied to
    ///     the cached items too. Its page and page size are ignored (the fetcher pages).
    ///   - pageSize: rows per page, 1–1000.
    ///   - allPages: fetch every page on `load()` rather than one at a time.
    public static func all(view: String, query: TableQuery<Item> = TableQuery(), pageSize: Int = 50, allPages: Bool = false) -> Self {
        var problem = ViewName.problem(view)
        if problem == nil, !(1...QueryArguments.maxPageSize).contains(pageSize) {
            problem = .invalidArgument("page size must be from 1 to \(QueryArguments.maxPageSize), got \(pageSize)")
        }
        if problem == nil {
            do { try query.validate() } catch { problem = .invalidArgument(error.detail) }
        }
        return Self(
            source: .pages(
                view: view,
                pageSize: pageSize,
                allPages: allPages,
                fetch: { selfdb, page, size in
                    var request = try client(selfdb).tables.data.query(Item.self).page(page).pageSize(size)
                    if let text = query.searchText { request = request.search(text) }
                    if let sort = query.sortKey { request = request.sort(sort.column, sort.order) }
                    let result = try await request.executePage()
                    return (result.rows, result.hasNext)
                },
                matches: { query.matches($0) }
            ),
            problem: problem
        )
    }

    /// One row by primary key (its text form: `uuidString` for UUIDs).
    public static func one(id: String) -> Self {
        Self(source: .one(id: id, fetch: { selfdb, id in try await findRow(try client(selfdb).tables.data, id: id) }), problem: checkItem(id: id))
    }

    /// One row by UUID primary key.
    public static func one(_ id: UUID) -> Self { .one(id: id.uuidString) }

    /// The client a table loader needs; a cache opened without one cannot fetch tables.
    private static func client(_ selfdb: SelfDB?) throws -> SelfDB {
        guard let selfdb else {
            throw CacheError.needsClient(Item.self)
        }
        return selfdb
    }

    /// SelfDB has no endpoint for one row, and search covers only text columns: the row is
    /// looked for page by page (1,000 rows a page).
    private static func findRow(_ data: SelfDB.Tables.Data, id: String) async throws -> Item? {
        var page = 1
        while true {
            let result = try await data.query(Item.self).page(page).pageSize(QueryArguments.maxPageSize).executePage()
            if let row = result.rows.first(where: { $0.cacheKey.caseInsensitiveCompare(id) == .orderedSame }) { return row }
            guard result.hasNext else { return nil }
            page += 1
        }
    }
}

import Foundation

/// Sort direction; the spec language's built-in `SortDirection`. (Not `SortOrder`, which
/// Foundation already names.)
public enum SortDirection: String, Sendable, Hashable, Codable, CaseIterable, QueryValueConvertible {
    /// Ascending: smallest first.
    case asc
    /// Descending: largest (newest) first.
    case desc
}

/// A typed, immutable query on a table model: every method returns a new query, so a base
/// query can be shared and refined. Columns are the model's own (`.sort(.createdAt, .desc)`,
/// `.where(\.done, .equals(false))`): a misspelt column does not compile.
///
/// The server honours search, sort and paging; filters are evaluated by executors that can
/// (the local cache) and rejected with a clear error by those that cannot.
public struct TableQuery<Row: TableModel>: Sendable {
    /// Free-text search (SelfDB: case-insensitive match across text columns).
    public private(set) var searchText: String?
    /// Sort column and direction.
    public private(set) var sortKey: (column: Row.Column, order: SortDirection)?
    /// 1-based page.
    public private(set) var pageNumber: Int?
    /// Rows per page.
    public private(set) var pageSizeValue: Int?
    /// Filters, all of which a row must pass.
    public private(set) var filters: [RowFilter<Row>] = []

    /// An unrestricted query.
    public init() {}

    /// Rows matching `text`.
    public func search(_ text: String) -> Self {
        var copy = self
        copy.searchText = text
        return copy
    }

    /// Ordered by `column`.
    public func sort(_ column: Row.Column, _ order: SortDirection = .desc) -> Self {
        var copy = self
        copy.sortKey = (column, order)
        return copy
    }

    /// Page `number` (from 1).
    public func page(_ number: Int) -> Self {
        var copy = self
        copy.pageNumber = number
        return copy
    }

    /// `size` rows per page (1–1000 on SelfDB).
    public func pageSize(_ size: Int) -> Self {
        var copy = self
        copy.pageSizeValue = size
        return copy
    }

    /// Rows whose `keyPath` property satisfies `condition`.
    public func `where`<Value>(_ keyPath: KeyPath<Row, Value> & Sendable, _ condition: Condition<Value>) -> Self {
        var copy = self
        copy.filters.append(RowFilter(column: Row.column(for: keyPath), condition: condition.erased(keyPath)))
        return copy
    }

    /// Checks the arguments against SelfDB's limits, so a bad value fails before any request.
    public func validate() throws(SelfDBError) {
        try QueryArguments.validate(page: pageNumber, pageSize: pageSizeValue, search: searchText)
        for filter in filters where filter.column == nil {
            throw .invalidArgument("a filter names a computed property, not a column of \(Row.tableName)")
        }
    }

    /// The query string SelfDB's `GET /tables/{id}/data` takes.
    public var queryItems: [QueryItem] {
        [
            QueryItem("page", pageNumber),
            QueryItem("page_size", pageSizeValue),
            QueryItem("search", searchText),
            QueryItem("sort_by", sortKey?.column.rawValue),
            QueryItem("sort_order", sortKey?.order),
        ].filter { $0.value != nil }
    }

    /// Whether `row` passes every filter.
    public func matches(_ row: Row) -> Bool {
        filters.allSatisfy { $0.condition.test(row) }
    }
}

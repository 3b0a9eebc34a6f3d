import Foundation
import SelfDBRuntime

extension SelfDB.Tables.Data {
    /// A fluent query on a table's rows: `query(tableId).search("x").sort("name").page(2).execute()`.
    public func query(_ tableId: UUID) -> TableDataQuery {
        TableDataQuery(data: self, tableId: tableId)
    }
}

/// The design note's query builder for `GET /tables/{id}/data`: an immutable value, so a base
/// query can be kept and refined (`base.page(2)`). Arguments are checked before any request.
public struct TableDataQuery: Sendable {
    let data: SelfDB.Tables.Data
    /// The table.
    public let tableId: UUID
    /// Search text.
    public private(set) var searchText: String?
    /// Sort column (a column of the table) and direction.
    public private(set) var sortColumn: String?
    /// Sort direction.
    public private(set) var sortOrder: SortDirection?
    /// Page, from 1.
    public private(set) var pageNumber: Int?
    /// Rows per page, 1–1000.
    public private(set) var pageSizeValue: Int?

    init(data: SelfDB.Tables.Data, tableId: UUID) {
        self.data = data
        self.tableId = tableId
    }

    /// Rows matching `text` (case-insensitive, across text columns).
    public func search(_ text: String) -> Self {
        var copy = self
        copy.searchText = text
        return copy
    }

    /// Ordered by `column`, newest first unless told otherwise.
    public func sort(_ column: String, _ order: SortDirection = .desc) -> Self {
        var copy = self
        copy.sortColumn = column
        copy.sortOrder = order
        return copy
    }

    /// Page `number`, from 1.
    public func page(_ number: Int) -> Self {
        var copy = self
        copy.pageNumber = number
        return copy
    }

    /// `size` rows per page (1–1000).
    public func pageSize(_ size: Int) -> Self {
        var copy = self
        copy.pageSizeValue = size
        return copy
    }

    /// Sends the query.
    public func execute() async throws -> TableDataResponse {
        try QueryArguments.validate(page: pageNumber, pageSize: pageSizeValue, search: searchText)
        if let column = sortColumn, column.isEmpty {
            throw SelfDBError.invalidArgument("sort column must not be empty")
        }
        return try await data.fetch(tableId, page: pageNumber, pageSize: pageSizeValue, sortBy: sortColumn, sortOrder: sortOrder, search: searchText)
    }
}

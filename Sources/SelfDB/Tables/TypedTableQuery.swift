import Foundation
import SelfDBRuntime

extension SelfDB.Tables.Data {
    /// A typed query on the table of a generated table model:
    /// `query(Task.self).sort(.createdAt, .desc).page(1).execute()` returns `[Task]`.
    ///
    /// The table is found by its name (`Task.tableName`) the first time and its id kept.
    public func query<Row: TableModel>(_ type: Row.Type) -> TypedTableQuery<Row> {
        TypedTableQuery(data: self, query: TableQuery())
    }
}

/// A `TableQuery` bound to the server. It offers what SelfDB's data endpoint honours — search,
/// sort and paging; column filters (`TableQuery.where`) are for the local cache.
public struct TypedTableQuery<Row: TableModel>: Sendable {
    let data: SelfDB.Tables.Data
    /// The query as built so far.
    public let query: TableQuery<Row>

    /// Rows matching `text`.
    public func search(_ text: String) -> Self { Self(data: data, query: query.search(text)) }
    /// Ordered by `column`.
    public func sort(_ column: Row.Column, _ order: SortDirection = .desc) -> Self { Self(data: data, query: query.sort(column, order)) }
    /// Page `number`, from 1.
    public func page(_ number: Int) -> Self { Self(data: data, query: query.page(number)) }
    /// `size` rows per page (1–1000).
    public func pageSize(_ size: Int) -> Self { Self(data: data, query: query.pageSize(size)) }

    /// The rows of the page.
    public func execute() async throws -> [Row] {
        try await executePage().rows
    }

    /// The rows of the page with the total count, for pagination.
    public func executePage() async throws -> TablePage<Row> {
        try query.validate()
        let tableId = try await data.tableId(of: Row.self)
        // The generated `data.fetch` (GET /tables/{id}/data) decodes rows as untyped JSON
        // trees; this is the same request decoding the rows straight into `Row` from the
        // response bytes, once, instead of re-encoding and decoding each tree again.
        let response = try await data.api.send(
            APIRequest(
                method: .get,
                path: "/tables/\(path: tableId)/data",
                auth: .optionalBearer,
                query: [
                    QueryItem("page", query.pageNumber),
                    QueryItem("page_size", query.pageSizeValue),
                    QueryItem("sort_by", query.sortKey?.column.rawValue),
                    QueryItem("sort_order", query.sortKey?.order),
                    QueryItem("search", query.searchText),
                ]
            ),
            decoding: TypedTableDataResponse<Row>.self
        )
        return TablePage(rows: response.data, total: response.total, page: response.page, pageSize: response.pageSize)
    }
}

/// `TableDataResponse` with its rows as `Row`s.
struct TypedTableDataResponse<Row: TableModel>: Decodable, Sendable {
    var data: [Row]
    var total: Int
    var page: Int
    var pageSize: Int

    enum CodingKeys: String, CodingKey {
        case data
        case total
        case page
        case pageSize = "page_size"
    }
}

/// One page of typed rows.
public struct TablePage<Row: TableModel>: Sendable, Hashable {
    /// The rows.
    public var rows: [Row]
    /// Rows matching the query on all pages.
    public var total: Int
    /// This page's number.
    public var page: Int
    /// Rows per page.
    public var pageSize: Int

    /// Whether pages follow this one.
    public var hasNext: Bool { page * pageSize < total }
}

/// Converts between untyped rows (`[String: JSONValue]`) and table models.
enum RowCoding {
    static func decode<Row: TableModel>(_ row: [String: JSONValue]) throws -> Row {
        do {
            let data = try JSONCoding.makeEncoder().encode(row)
            return try JSONCoding.makeDecoder().decode(Row.self, from: data)
        } catch {
            throw SelfDBError.invalidResponse("a row of \(Row.tableName) does not match \(Row.self): \(error)")
        }
    }

    static func encode<Row: TableModel>(_ row: Row) throws -> [String: JSONValue] {
        do {
            let data = try JSONCoding.makeEncoder().encode(row)
            return try JSONCoding.makeDecoder().decode([String: JSONValue].self, from: data)
        } catch {
            throw SelfDBError.invalidArgument("cannot encode a \(Row.self) row: \(error)")
        }
    }
}

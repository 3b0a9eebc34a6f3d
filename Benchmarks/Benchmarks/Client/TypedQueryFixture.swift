import Foundation
import SelfDB

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A client whose transport answers from memory: the table lookup and one page of 1,000
/// `BenchRow`s, so the typed-query benchmark measures decoding and the client, not a server.
enum TypedQueryFixture {
    static let rowCount = 1_000
    static let rows = RowsFixture.json(count: rowCount)

    struct PageTransport: HTTPTransport {
        let tables: Data
        let page: Data

        func send(_ request: URLRequest) async throws -> (Data, HTTPURLResponse) {
            let body = request.url?.path.hasSuffix("/data") == true ? page : tables
            guard let url = request.url, let response = HTTPURLResponse(url: url, statusCode: 200, httpVersion: "HTTP/1.1", headerFields: ["Content-Type": "application/json"]) else {
                throw URLError(.badURL)
            }
            return (body, response)
        }
    }

    static func client() throws -> SelfDB {
        let table = TableRead(id: UUID(), name: BenchRow.tableName, tableSchema: [:], public: true, createdAt: Date())
        let tables = try JSONCoding.makeEncoder().encode([table])
        var page = Data(#"{"total":\#(rowCount),"page":1,"page_size":\#(rowCount),"data":"#.utf8)
        page.append(rows)
        page.append(Data("}".utf8))
        guard let base = URL(string: "http://127.0.0.1:1") else { throw URLError(.badURL) }
        return SelfDB(baseURL: base, apiKey: "bench", transport: PageTransport(tables: tables, page: page))
    }
}

import Foundation
import Testing

@testable import EmulatorSupport
@testable import SelfDBEmulator

@Suite("Table data")
struct RowTests {
    static let notes: JSONValue = [
        "id": ["type": "uuid", "nullable": false],
        "title": ["type": "text"],
        "body": ["type": "varchar"],
        "rank": ["type": "integer"],
        "done": ["type": "boolean"],
        "price": ["type": "decimal"],
        "due": ["type": "timestamp"],
        "extra": ["type": "jsonb"],
        "user_id": ["type": "uuid"],
    ]

    @Test func insertFillsUUIDAndTypesRoundTrip() async throws {
        try await withEmulator { _, client in
            let token = try await client.adminToken()
            let id = try await client.newTable("notes", schema: Self.notes, public: true, token: token)
            let inserted = try await client.send(
                "POST",
                "/tables/\(id)/data",
                json: ["title": "Hi", "rank": 3, "done": true, "price": 9.5, "due": "2024-05-01T10:00:00Z", "extra": ["tags": ["a"]]],
                token: token
            )
            #expect(inserted.status == 200)
            #expect(inserted.json?["status"] == "row_inserted")
            let row = try #require(inserted.json?["data"])
            #expect(UUID(uuidString: row["id"]?.stringValue ?? "") != nil)
            #expect(row["rank"] == 3)
            #expect(row["done"] == true)
            #expect(row["price"] == 9.5)
            #expect(row["due"] == "2024-05-01T10:00:00+00:00")
            #expect(row["extra"] == ["tags": ["a"]])
            #expect(row["body"] == .null)
            #expect(row.objectValue?.keys == ["id", "title", "body", "rank", "done", "price", "due", "extra", "user_id"])
        }
    }

    @Test func insertRejectsBadRows() async throws {
        try await withEmulator { _, client in
            let token = try await client.adminToken()
            let id = try await client.newTable("strict_notes", schema: Self.notes, public: false, token: token)
            #expect(try await client.send("POST", "/tables/\(id)/data", json: ["title": "x"]).status == 401)
            // Any signed-in user may insert into a private table (SelfDB v0.0.5); only anonymous callers are refused.
            let stranger = try await client.newUser("stranger@example.com")
            #expect(try await client.send("POST", "/tables/\(id)/data", json: ["title": "x"], token: stranger.token).status == 200)
            #expect(try await client.send("POST", "/tables/\(id)/data", json: [:], token: token).status == 400)
            let unknown = try await client.send("POST", "/tables/\(id)/data", json: ["nope": 1], token: token)
            #expect(unknown.status == 400)
            #expect(unknown.detail == "column \"nope\" of relation \"strict_notes\" does not exist")
            #expect(try await client.send("POST", "/tables/\(id)/data", json: ["rank": "many"], token: token).status == 400)
            #expect(try await client.send("POST", "/tables/\(id)/data", json: ["rank": 9_999_999_999], token: token).status == 400)
            #expect(try await client.send("POST", "/tables/\(id)/data", json: ["due": "yesterday"], token: token).status == 400)
            #expect(try await client.send("POST", "/tables/\(id)/data", json: ["body": .string(String(repeating: "x", count: 256))], token: token).status == 400)
            #expect(try await client.send("POST", "/tables/\(id)/data", json: ["id": "not-a-uuid"], token: token).status == 400)
            #expect(try await client.send("POST", "/tables/\(id)/data", json: ["title", "x"], token: token).status == 422)
            #expect(try await client.send("GET", "/tables/\(id)/data", token: token).json?["total"] == 1)
        }
    }

    @Test func fetchPagesSearchesAndSorts() async throws {
        try await withEmulator { _, client in
            let token = try await client.adminToken()
            let id = try await client.newTable("items", schema: ["name": ["type": "text"], "n": ["type": "integer"]], public: true, token: token)
            for index in 1...25 {
                _ = try await client.send("POST", "/tables/\(id)/data", json: ["name": .string("item \(index)"), "n": .int(Int64(index))], token: token)
            }
            let page = try await client.send("GET", "/tables/\(id)/data", query: [("page", "2"), ("page_size", "10"), ("sort_by", "n"), ("sort_order", "asc")])
            #expect(page.json?["total"] == 25)
            #expect(page.json?["page"] == 2)
            #expect(page.json?["page_size"] == 10)
            #expect(page.json?["data"]?.arrayValue?.compactMap { $0["n"]?.intValue } == Array(11...20))
            let desc = try await client.send("GET", "/tables/\(id)/data", query: [("sort_by", "n"), ("page_size", "3")])
            #expect(desc.json?["data"]?.arrayValue?.compactMap { $0["n"]?.intValue } == [25, 24, 23])
            let defaultOrder = try await client.send("GET", "/tables/\(id)/data", query: [("page_size", "2")])
            #expect(defaultOrder.json?["data"]?.arrayValue?.compactMap { $0["n"]?.intValue } == [1, 2])
            let search = try await client.send("GET", "/tables/\(id)/data", query: [("search", "item 2")])
            #expect(search.json?["total"] == 7)  // 2, 20..25
            let beyond = try await client.send("GET", "/tables/\(id)/data", query: [("page", "9")])
            #expect(beyond.json?["data"] == [])
            #expect(beyond.json?["total"] == 25)
        }
    }

    @Test func fetchValidatesParameters() async throws {
        try await withEmulator { _, client in
            let token = try await client.adminToken()
            let id = try await client.newTable("checked", schema: ["name": ["type": "text"]], public: true, token: token)
            let badSort = try await client.send("GET", "/tables/\(id)/data", query: [("sort_by", "nope")])
            #expect(badSort.status == 400)
            #expect(badSort.detail == "Invalid sort_by column: 'nope'. Valid columns: name")
            #expect(try await client.send("GET", "/tables/\(id)/data", query: [("page", "0")]).issueTypes == ["greater_than_equal"])
            #expect(try await client.send("GET", "/tables/\(id)/data", query: [("page_size", "0")]).issueTypes == ["greater_than_equal"])
            #expect(try await client.send("GET", "/tables/\(id)/data", query: [("page_size", "1001")]).issueTypes == ["less_than_equal"])
            #expect(try await client.send("GET", "/tables/\(id)/data", query: [("sort_order", "up")]).issueTypes == ["literal_error"])
            let unknown = try await client.send("GET", "/tables/\(id)/data", query: [("limit", "5")])
            #expect(unknown.status == 400)
            #expect(unknown.detail == "Unknown query parameters: limit")
            #expect(try await client.send("GET", "/tables/\(id)/data", query: [("page_size", "1000")]).status == 200)
            let secret = try await client.newTable("hidden_rows", schema: ["name": ["type": "text"]], public: false, token: token)
            #expect(try await client.send("GET", "/tables/\(secret)/data").status == 401)
            #expect(try await client.send("GET", "/tables/\(UUID().uuidString)/data").status == 404)
        }
    }

    @Test func rowOwnershipRules() async throws {
        try await withEmulator { _, client in
            let admin = try await client.adminToken()
            let alice = try await client.newUser("alice-rows@example.com")
            let bob = try await client.newUser("bob-rows@example.com")
            let shared = try await client.newTable(
                "shared_rows",
                schema: ["id": ["type": "uuid"], "text": ["type": "text"], "user_id": ["type": "uuid"]],
                public: true,
                token: admin
            )
            let aliceRow = try await client.send("POST", "/tables/\(shared)/data", json: ["text": "a", "user_id": .string(alice.id)], token: alice.token)
            let rowID = try #require(aliceRow.json?["data"]?["id"]?.stringValue)

            let bobTry = try await client.send("PATCH", "/tables/\(shared)/data/\(rowID)", json: ["text": "hacked"], token: bob.token)
            #expect(bobTry.status == 404)
            #expect(try await client.send("DELETE", "/tables/\(shared)/data/\(rowID)", token: bob.token).status == 404)
            #expect(try await client.send("PATCH", "/tables/\(shared)/data/\(rowID)", json: ["text": "x"]).status == 401)

            let own = try await client.send("PATCH", "/tables/\(shared)/data/\(rowID)", json: ["text": "mine"], token: alice.token)
            #expect(own.status == 200)
            #expect(own.json?["status"] == "row_updated")
            #expect(own.json?["data"]?["text"] == "mine")
            let byAdmin = try await client.send("PATCH", "/tables/\(shared)/data/\(rowID)", json: ["text": "admin"], token: admin)
            #expect(byAdmin.json?["data"]?["text"] == "admin")
            #expect(try await client.send("PATCH", "/tables/\(shared)/data/\(rowID)", json: [:], token: admin).status == 400)
            #expect(try await client.send("PATCH", "/tables/\(shared)/data/\(rowID)", json: ["ghost": 1], token: admin).status == 400)
            #expect(try await client.send("PATCH", "/tables/\(shared)/data/\(UUID().uuidString)", json: ["text": "x"], token: admin).status == 404)

            let noOwnerColumn = try await client.newTable("plain_rows", schema: ["name": ["type": "text"]], public: true, token: admin)
            _ = try await client.send("POST", "/tables/\(noOwnerColumn)/data", json: ["name": "n1"], token: admin)
            let noColumn = try await client.send("PATCH", "/tables/\(noOwnerColumn)/data/n1", query: [("id_column", "name")], json: ["name": "n2"], token: bob.token)
            #expect(noColumn.status == 400)
            let adminByName = try await client.send("PATCH", "/tables/\(noOwnerColumn)/data/n1", query: [("id_column", "name")], json: ["name": "n2"], token: admin)
            #expect(adminByName.json?["data"] == ["name": "n2"])
            #expect(try await client.send("DELETE", "/tables/\(noOwnerColumn)/data/n2", query: [("id_column", "nope")], token: admin).status == 400)

            let deleted = try await client.send("DELETE", "/tables/\(shared)/data/\(rowID)", token: alice.token)
            #expect(deleted.status == 200)
            #expect(deleted.json == ["status": "row_deleted", "table_id": .string(shared), "row_id": .string(rowID)])
            #expect(try await client.send("DELETE", "/tables/\(shared)/data/\(rowID)", token: alice.token).status == 404)
        }
    }
}

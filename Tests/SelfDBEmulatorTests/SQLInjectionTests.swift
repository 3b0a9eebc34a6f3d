import Foundation
import Testing

@testable import SelfDBEmulator

@Suite("SQL injection")
struct SQLInjectionTests {
    /// After each attempt the victim table must still hold its row.
    private func victimIntact(_ client: APIClient, _ id: String) async throws -> Bool {
        try await client.send("GET", "/tables/\(id)/data").json?["total"] == 1
    }

    @Test func tableNamesCannotInject() async throws {
        try await withEmulator { _, client in
            let token = try await client.adminToken()
            let victim = try await client.newTable("victim", schema: ["v": ["type": "text"]], public: true, token: token)
            _ = try await client.send("POST", "/tables/\(victim)/data", json: ["v": "alive"], token: token)
            for name in ["victim\"; DROP TABLE victim; --", "x; DROP TABLE victim", "victim--", "_selfdb_users", "sqlite_master", "a b"] {
                let response = try await client.send("POST", "/tables/", json: ["name": .string(name), "table_schema": ["a": ["type": "text"]]], token: token)
                #expect(response.status == 422, "\(name)")
                let rename = try await client.send("PATCH", "/tables/\(victim)", json: ["name": .string(name)], token: token)
                #expect(rename.status == 422, "\(name)")
            }
            #expect(try await victimIntact(client, victim))
        }
    }

    @Test func columnNamesAndTypesCannotInject() async throws {
        try await withEmulator { _, client in
            let token = try await client.adminToken()
            let victim = try await client.newTable("victim", schema: ["v": ["type": "text"]], public: true, token: token)
            _ = try await client.send("POST", "/tables/\(victim)/data", json: ["v": "alive"], token: token)
            let evil = "v\" TEXT); DROP TABLE victim; --"
            #expect(try await client.send("POST", "/tables/", json: ["name": "evil", "table_schema": [.init(stringLiteral: evil): ["type": "text"]]], token: token).status == 422)
            #expect(try await client.send("POST", "/tables/", json: ["name": "evil", "table_schema": ["a": ["type": "text); DROP TABLE victim; --"]]], token: token).status == 422)
            #expect(try await client.send("POST", "/tables/\(victim)/columns", json: ["name": .string(evil), "type": "text"], token: token).status == 400)
            #expect(try await client.send("PATCH", "/tables/\(victim)/columns/v", json: ["new_name": .string(evil)], token: token).status == 400)
            #expect(try await client.send("POST", "/tables/\(victim)/data", json: [.init(stringLiteral: evil): "x"], token: token).status == 400)
            #expect(try await client.send("PATCH", "/tables/\(victim)/data/alive", query: [("id_column", "v = v OR 1=1; --")], json: ["v": "x"], token: token).status == 400)
            #expect(try await client.send("GET", "/tables/\(victim)/data", query: [("sort_by", "v; DROP TABLE victim")]).status == 400)
            #expect(try await client.send("DELETE", "/tables/\(victim)/columns/v%22%3B%20DROP%20TABLE%20victim%3B%20--", token: token).status == 404)
            #expect(try await victimIntact(client, victim))
        }
    }

    @Test func searchStringsAndRowIDsAreBoundParameters() async throws {
        try await withEmulator { _, client in
            let token = try await client.adminToken()
            let victim = try await client.newTable("victim", schema: ["v": ["type": "text"]], public: true, token: token)
            _ = try await client.send("POST", "/tables/\(victim)/data", json: ["v": "alive"], token: token)
            for search in ["' OR '1'='1", "'; DROP TABLE victim; --", "%", "_", "\\"] {
                let data = try await client.send("GET", "/tables/\(victim)/data", query: [("search", search)])
                #expect(data.status == 200)
                #expect(data.json?["total"] == 0, "\(search)")
                #expect(try await client.send("GET", "/tables/count", query: [("search", search)]).json == 0)
                #expect(try await client.send("GET", "/users/count", query: [("search", search)], token: token).json == 0)
                #expect(try await client.send("GET", "/storage/buckets/count", query: [("search", search)]).json == 0)
            }
            let row = try await client.send("DELETE", "/tables/\(victim)/data/x%27%20OR%20%271%27%3D%271", query: [("id_column", "v")], token: token)
            #expect(row.status == 404)
            let login = try await client.send("POST", "/users/token", json: ["email": "' OR 1=1 --", "password": "x"])
            #expect(login.status == 401)
            #expect(try await victimIntact(client, victim))
        }
    }
}

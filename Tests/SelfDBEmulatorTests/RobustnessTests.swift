import Foundation
import Testing

@testable import SelfDBEmulator

@Suite("Bad input")
struct RobustnessTests {
    @Test func malformedJSONIs422JSONInvalid() async throws {
        try await withEmulator { _, client in
            let token = try await client.adminToken()
            for body in ["{", "{\"name\": }", "[1,2", "nul", "{\"a\":1}}", "\u{FF}\u{FE}"] {
                let response = try await client.send("POST", "/tables/", raw: Array(body.utf8), token: token)
                #expect(response.status == 422, "\(body)")
                #expect(response.issueTypes == ["json_invalid"], "\(body)")
            }
            let deep = String(repeating: "[", count: 100_000) + String(repeating: "]", count: 100_000)
            #expect(try await client.send("POST", "/tables/", raw: Array(deep.utf8), token: token).status == 422)
            // Still serving afterwards.
            #expect(try await client.send("GET", "/users/me", token: token).status == 200)
        }
    }

    @Test func wrongTypesAre422() async throws {
        try await withEmulator { _, client in
            #expect(try await client.send("POST", "/users/token", json: ["email": 5, "password": ["x"]]).issueTypes == ["string_type", "string_type"])
            #expect(try await client.send("POST", "/users/token", json: "just a string").issueTypes == ["model_attributes_type"])
            #expect(try await client.send("POST", "/users/token").issueTypes == ["missing"])
            let token = try await client.adminToken()
            #expect(try await client.send("POST", "/storage/buckets/", json: ["name": 42], token: token).issueTypes == ["string_type"])
            #expect(try await client.send("POST", "/tables/", json: ["name": "t", "table_schema": ["a": ["type": "text"]], "metadata": [1]], token: token).issueTypes == ["dict_type"])
        }
    }

    @Test func hugeBodiesAre413() async throws {
        try await withEmulator { _, client in
            let token = try await client.adminToken()
            let huge = Array(repeating: UInt8(ascii: " "), count: 3 << 20)
            let response = try await client.send("POST", "/tables/", raw: huge, token: token)
            #expect(response.status == 413)
            #expect(response.detail?.contains("too large") == true)
            #expect(try await client.send("GET", "/users/me", token: token).status == 200)
        }
    }

    @Test func unknownRoutesMethodsAndSlashes() async throws {
        try await withEmulator { _, client in
            let notFound = try await client.send("GET", "/does/not/exist")
            #expect(notFound.status == 404)
            #expect(notFound.json == ["detail": "Not Found"])
            let wrongMethod = try await client.send("PUT", "/users/me")
            #expect(wrongMethod.status == 405)
            #expect(wrongMethod.detail == "Method Not Allowed")
            let redirect = try await client.send("GET", "/tables", query: [("limit", "5")])
            #expect(redirect.status == 307)
            #expect(redirect.header("location")?.hasSuffix("/tables/?limit=5") == true)
            #expect(try await client.send("POST", "/storage/buckets").status == 307)
            #expect(try await client.send("GET", "/users/me/").status == 307)
            #expect(try await client.send("GET", "/users/not-a-uuid").status == 404)
            // An empty segment is no route (the real server: 404), before any other check.
            for path in ["/tables//", "//tables/", "/users//me", "/storage//buckets/"] {
                let doubled = try await client.send("GET", path)
                #expect(doubled.status == 404, "\(path)")
                #expect(doubled.detail == "Not Found", "\(path)")
            }
        }
    }
}

import Foundation
import GRDB
import Testing

@testable import SelfDBEmulator

@Suite("Users")
struct UserTests {
    @Test func registrationReturnsCamelCaseUserRead() async throws {
        try await withEmulator { _, client in
            let response = try await client.send(
                "POST",
                "/users/",
                json: ["email": "ann@example.com", "password": "Secret@123", "firstName": "Ann", "lastName": "Lee"]
            )
            #expect(response.status == 201)
            let user = try #require(response.json?.objectValue)
            #expect(user.keys == ["id", "email", "firstName", "lastName", "role", "isActive", "created_at"])
            #expect(user["role"] == "USER")
            #expect(user["isActive"] == true)
            #expect(user["created_at"]?.stringValue?.hasSuffix("Z") == true)
            #expect(!response.text.contains("password"))
        }
    }

    @Test func registrationAcceptsSnakeCaseAndDuplicateReturnsExisting() async throws {
        try await withEmulator { _, client in
            let first = try await client.send(
                "POST",
                "/users/",
                json: ["email": "sam@example.com", "password": "Secret123", "first_name": "Sam", "last_name": "Ng"]
            )
            #expect(first.status == 201)
            #expect(first.json?["firstName"] == "Sam")
            let again = try await client.send(
                "POST",
                "/users/",
                json: ["email": "sam@example.com", "password": "Different1", "firstName": "X", "lastName": "Y"]
            )
            #expect(again.status == 201)
            #expect(again.json?["id"] == first.json?["id"])
            #expect(again.json?["firstName"] == "Sam")
        }
    }

    @Test func registrationValidatesEmailPasswordAndFields() async throws {
        try await withEmulator { _, client in
            let badPassword = try await client.send(
                "POST",
                "/users/",
                json: ["email": "a@example.com", "password": "has space1", "firstName": "A", "lastName": "B"]
            )
            #expect(badPassword.status == 422)
            #expect(badPassword.issueTypes == ["string_pattern_mismatch"])
            let long = String(repeating: "a", count: 73)
            let tooLong = try await client.send(
                "POST",
                "/users/",
                json: ["email": "a@example.com", "password": .string(long), "firstName": "A", "lastName": "B"]
            )
            #expect(tooLong.issueTypes == ["string_too_long"])
            let badEmail = try await client.send(
                "POST",
                "/users/",
                json: ["email": "not-an-email", "password": "Password1", "firstName": "A", "lastName": "B"]
            )
            #expect(badEmail.issueTypes == ["value_error"])
            let extra = try await client.send(
                "POST",
                "/users/",
                json: ["email": "a@example.com", "password": "Password1", "firstName": "A", "lastName": "B", "role": "ADMIN"]
            )
            #expect(extra.status == 422)
            #expect(extra.issueTypes == ["extra_forbidden"])
        }
    }

    @Test func listCountAndGet() async throws {
        try await withEmulator { _, client in
            let admin = try await client.adminToken()
            let zed = try await client.newUser("zed@example.com")
            _ = try await client.newUser("amy@example.com")

            let list = try await client.send("GET", "/users/", query: [("sort_by", "email"), ("sort_order", "asc")], token: admin)
            #expect(list.status == 200)
            #expect(list.json?.arrayValue?.compactMap { $0["email"]?.stringValue } == ["admin@example.com", "amy@example.com", "zed@example.com"])
            let limited = try await client.send("GET", "/users/", query: [("limit", "1"), ("skip", "1"), ("sort_by", "email"), ("sort_order", "asc")], token: admin)
            #expect(limited.json?.arrayValue?.count == 1)
            #expect(limited.json?.arrayValue?.first?["email"] == "amy@example.com")

            let count = try await client.send("GET", "/users/count", query: [("search", "example")], token: admin)
            #expect(count.json == 3)
            #expect(try await client.send("GET", "/users/count", query: [("search", "zed")], token: admin).json == 1)

            let one = try await client.send("GET", "/users/\(zed.id)", token: zed.token)
            #expect(one.json?["email"] == "zed@example.com")
            #expect(try await client.send("GET", "/users/\(UUID().uuidString.lowercased())", token: admin).status == 404)
            #expect(try await client.send("GET", "/users/not-a-uuid", token: admin).status == 404)
            #expect(try await client.send("GET", "/users/").status == 401)
            #expect(try await client.send("GET", "/users/count").status == 401)
        }
    }

    @Test func listRejectsUnknownAndInvalidParameters() async throws {
        try await withEmulator { _, client in
            let admin = try await client.adminToken()
            let unknown = try await client.send("GET", "/users/", query: [("foo", "1"), ("bar", "2")], token: admin)
            #expect(unknown.status == 400)
            #expect(unknown.detail == "Unknown query parameters: foo, bar")
            #expect(try await client.send("GET", "/users/", query: [("limit", "101")], token: admin).issueTypes == ["less_than_equal"])
            #expect(try await client.send("GET", "/users/", query: [("skip", "-1")], token: admin).issueTypes == ["greater_than_equal"])
            #expect(try await client.send("GET", "/users/", query: [("limit", "abc")], token: admin).issueTypes == ["int_parsing"])
            #expect(try await client.send("GET", "/users/", query: [("sort_by", "password")], token: admin).issueTypes == ["literal_error"])
            #expect(try await client.send("GET", "/users/count", query: [("search", String(repeating: "x", count: 101))], token: admin).issueTypes == ["string_too_long"])
            #expect(try await client.send("GET", "/users/count", query: [("search", "é")], token: admin).issueTypes == ["string_pattern_mismatch"])
            #expect(try await client.send("GET", "/users/count", query: [("skip", "1")], token: admin).status == 400)
        }
    }

    @Test func onlyAdminsUpdateAndDeleteUsers() async throws {
        try await withEmulator { _, client in
            let admin = try await client.adminToken()
            let alice = try await client.newUser("alice@example.com")
            let bob = try await client.newUser("bob@example.com")

            let forbidden = try await client.send("PATCH", "/users/\(bob.id)", json: ["firstName": "Hacked"], token: alice.token)
            #expect(forbidden.status == 403)
            #expect(try await client.send("DELETE", "/users/\(bob.id)", token: alice.token).status == 403)

            let updated = try await client.send(
                "PATCH",
                "/users/\(bob.id)",
                json: ["firstName": "Robert", "role": "ADMIN", "password": "NewPass123"],
                token: admin
            )
            #expect(updated.status == 200)
            #expect(updated.json?["firstName"] == "Robert")
            #expect(updated.json?["role"] == "ADMIN")
            _ = try await client.login("bob@example.com", "NewPass123")

            let taken = try await client.send("PATCH", "/users/\(bob.id)", json: ["email": "alice@example.com"], token: admin)
            #expect(taken.status == 409)
            #expect(try await client.send("PATCH", "/users/\(bob.id)", json: ["role": "ROOT"], token: admin).status == 422)
            #expect(try await client.send("PATCH", "/users/\(UUID().uuidString)", json: ["firstName": "X"], token: admin).status == 404)

            let deleted = try await client.send("DELETE", "/users/\(alice.id)", token: admin)
            #expect(deleted.status == 200)
            #expect(deleted.json == ["status": "user_deleted", "id": .string(alice.id)])
            #expect(try await client.send("GET", "/users/\(alice.id)", token: admin).status == 404)
            #expect(try await client.send("DELETE", "/users/\(alice.id)", token: admin).status == 404)
        }
    }

    @Test func passwordsAreStoredAsSaltedHashes() async throws {
        try await withEmulator { emulator, client in
            _ = try await client.newUser("hash1@example.com", password: "SamePass123")
            _ = try await client.newUser("hash2@example.com", password: "SamePass123")
            let path = emulator.dataDirectory.appendingPathComponent("selfdb.sqlite").path
            let database = try EmulatorDatabase(path: path)
            let hashes = try await database.pool.read { db in
                try String.fetchAll(db, sql: "SELECT password_hash FROM _selfdb_users WHERE email LIKE 'hash%' ORDER BY email")
            }
            #expect(hashes.count == 2)
            #expect(hashes.allSatisfy { $0.hasPrefix("pbkdf2_sha256$") && !$0.contains("SamePass123") })
            #expect(hashes[0] != hashes[1])
        }
    }
}

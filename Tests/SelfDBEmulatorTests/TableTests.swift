import Foundation
import Testing

@testable import EmulatorSupport
@testable import SelfDBEmulator

@Suite("Tables and columns")
struct TableTests {
    static let schema: JSONValue = [
        "id": ["type": "uuid", "nullable": false],
        "title": ["type": "text", "nullable": false],
        "score": ["type": "integer", "nullable": true, "default": 0],
    ]

    @Test func createReturnsTableReadAndDuplicateReturnsExisting() async throws {
        try await withEmulator { _, client in
            let token = try await client.adminToken()
            let created = try await client.send(
                "POST",
                "/tables/",
                json: ["name": "tasks", "table_schema": Self.schema, "public": true, "description": "todo", "metadata": ["v": 1]],
                token: token
            )
            #expect(created.status == 201)
            let table = try #require(created.json?.objectValue)
            #expect(
                table.keys == [
                    "id", "name", "table_schema", "public", "description", "metadata", "owner_id", "row_count",
                    "realtime_enabled", "created_at", "updated_at",
                ]
            )
            #expect(table["table_schema"] == Self.schema)
            #expect(table["row_count"] == 0)
            #expect(table["realtime_enabled"] == false)
            #expect(table["metadata"] == ["v": 1])
            let again = try await client.send("POST", "/tables/", json: ["name": "tasks", "table_schema": ["x": ["type": "text"]]], token: token)
            #expect(again.status == 201)
            #expect(again.json?["id"] == table["id"])
            #expect(try await client.send("POST", "/tables/", json: ["name": "t2", "table_schema": Self.schema]).status == 401)
        }
    }

    @Test func createValidatesNameAndSchema() async throws {
        try await withEmulator { _, client in
            let token = try await client.adminToken()
            func create(_ body: JSONValue) async throws -> APIResponse {
                try await client.send("POST", "/tables/", json: body, token: token)
            }
            #expect(try await create(["name": "users", "table_schema": Self.schema]).issueTypes == ["value_error"])
            #expect(try await create(["name": "select", "table_schema": Self.schema]).issueTypes == ["value_error"])
            #expect(try await create(["name": "Bad-Name", "table_schema": Self.schema]).issueTypes == ["string_pattern_mismatch"])
            #expect(try await create(["name": "1abc", "table_schema": Self.schema]).issueTypes == ["string_pattern_mismatch"])
            #expect(try await create(["name": .string(String(repeating: "a", count: 64)), "table_schema": Self.schema]).issueTypes == ["string_too_long"])
            #expect(try await create(["name": "ok_name", "table_schema": [:]]).issueTypes == ["value_error"])
            #expect(try await create(["name": "ok_name"]).issueTypes == ["missing"])
            #expect(try await create(["name": "ok_name", "table_schema": Self.schema, "public": "yes"]).issueTypes == ["bool_type"])
            #expect(try await create(["name": "ok_name", "table_schema": Self.schema, "colour": "red"]).issueTypes == ["extra_forbidden"])
            #expect(try await create(["name": "ok_name", "table_schema": "text"]).issueTypes == ["dict_type"])
        }
    }

    @Test func listCountAndReadRespectVisibility() async throws {
        try await withEmulator { _, client in
            let admin = try await client.adminToken()
            let user = try await client.newUser("viewer@example.com")
            let open = try await client.newTable("open_table", schema: Self.schema, public: true, token: admin)
            let closed = try await client.newTable("closed_table", schema: Self.schema, public: false, token: admin)
            _ = try await client.newTable("mine", schema: Self.schema, public: false, token: user.token)

            #expect(try await client.send("GET", "/tables/count").json == 1)
            #expect(try await client.send("GET", "/tables/count", token: user.token).json == 2)
            #expect(try await client.send("GET", "/tables/count", query: [("search", "open")], token: admin).json == 1)
            let anonymous = try await client.send("GET", "/tables/")
            #expect(anonymous.json?.arrayValue?.compactMap { $0["name"]?.stringValue } == ["open_table"])
            // The list shows a signed-in user every table, private ones included, while the count
            // above counts only public and own ones: SelfDB v0.0.5 does both.
            let sorted = try await client.send("GET", "/tables/", query: [("sort_by", "name"), ("sort_order", "asc")], token: user.token)
            #expect(sorted.json?.arrayValue?.compactMap { $0["name"]?.stringValue } == ["closed_table", "mine", "open_table"])
            #expect(try await client.send("GET", "/tables/", query: [("sort_by", "row_count")]).issueTypes == ["literal_error"])
            #expect(try await client.send("GET", "/tables/", query: [("page", "1")]).status == 400)
            #expect(try await client.send("GET", "/tables/count", query: [("limit", "1")]).status == 400)

            #expect(try await client.send("GET", "/tables/\(open)").status == 200)
            let privateAnonymous = try await client.send("GET", "/tables/\(closed)")
            #expect(privateAnonymous.status == 401)
            #expect(try await client.send("GET", "/tables/\(closed)", token: user.token).status == 200)
            #expect(try await client.send("GET", "/tables/\(closed)", token: admin).status == 200)
            #expect(try await client.send("GET", "/tables/\(UUID().uuidString)").status == 404)
            #expect(try await client.send("GET", "/tables/12345").status == 404)
        }
    }

    @Test func updateRenamesAndTogglesFlagsOnlyForOwner() async throws {
        try await withEmulator { _, client in
            let owner = try await client.newUser("owner@example.com")
            let other = try await client.newUser("other@example.com")
            let admin = try await client.adminToken()
            let id = try await client.newTable("drafts", schema: Self.schema, token: owner.token)
            _ = try await client.send("POST", "/tables/\(id)/data", json: ["title": "keep me"], token: owner.token)

            #expect(try await client.send("PATCH", "/tables/\(id)", json: ["public": true], token: other.token).status == 403)
            #expect(try await client.send("PATCH", "/tables/\(id)", json: ["public": true]).status == 401)
            let renamed = try await client.send(
                "PATCH",
                "/tables/\(id)",
                json: ["name": "posts", "public": true, "realtime_enabled": true, "description": "d"],
                token: owner.token
            )
            #expect(renamed.status == 200)
            #expect(renamed.json?["name"] == "posts")
            #expect(renamed.json?["public"] == true)
            #expect(renamed.json?["realtime_enabled"] == true)
            #expect(renamed.json?["row_count"] == 1)
            let data = try await client.send("GET", "/tables/\(id)/data")
            #expect(data.json?["data"]?.arrayValue?.first?["title"] == "keep me")

            _ = try await client.newTable("taken", schema: Self.schema, token: admin)
            #expect(try await client.send("PATCH", "/tables/\(id)", json: ["name": "taken"], token: admin).status == 409)
            #expect(try await client.send("PATCH", "/tables/\(id)", json: ["name": "user"], token: admin).status == 422)
            #expect(try await client.send("PATCH", "/tables/\(id)", json: ["owner_id": "x"], token: admin).status == 422)
        }
    }

    @Test func deleteDropsTheTable() async throws {
        try await withEmulator { _, client in
            let owner = try await client.newUser("dropper@example.com")
            let other = try await client.newUser("bystander@example.com")
            let id = try await client.newTable("doomed", schema: Self.schema, token: owner.token)
            #expect(try await client.send("DELETE", "/tables/\(id)", token: other.token).status == 403)
            let deleted = try await client.send("DELETE", "/tables/\(id)", token: owner.token)
            #expect(deleted.status == 200)
            #expect(deleted.json == ["status": "table_deleted", "id": .string(id), "name": "doomed"])
            #expect(try await client.send("GET", "/tables/\(id)", token: owner.token).status == 404)
            #expect(try await client.send("DELETE", "/tables/\(id)", token: owner.token).status == 404)
            // The name is free again, so the SQLite table really went away.
            _ = try await client.newTable("doomed", schema: ["other": ["type": "integer"]], token: owner.token)
        }
    }

    @Test func addColumnAltersTheRealTable() async throws {
        try await withEmulator { _, client in
            let token = try await client.adminToken()
            let id = try await client.newTable("people", schema: ["name": ["type": "text"]], public: true, token: token)
            _ = try await client.send("POST", "/tables/\(id)/data", json: ["name": "Ada"], token: token)

            let added = try await client.send(
                "POST",
                "/tables/\(id)/columns",
                json: ["name": "city", "type": "varchar", "default": "'Paris'"],
                token: token
            )
            #expect(added.status == 200)
            #expect(added.json == ["status": "column_added", "column": "city"])
            let rows = try await client.send("GET", "/tables/\(id)/data")
            #expect(rows.json?["data"]?.arrayValue?.first?["city"] == "Paris")
            let table = try await client.send("GET", "/tables/\(id)")
            #expect(table.json?["table_schema"]?["city"] == ["type": "varchar", "nullable": true, "default": "'Paris'"])

            #expect(try await client.send("POST", "/tables/\(id)/columns", json: ["name": "city", "type": "text"], token: token).status == 409)
            #expect(try await client.send("POST", "/tables/\(id)/columns", json: ["name": "bad name", "type": "text"], token: token).status == 400)
            #expect(try await client.send("POST", "/tables/\(id)/columns", json: ["name": "x", "type": "text); DROP TABLE people; --"], token: token).status == 400)
            #expect(try await client.send("POST", "/tables/\(id)/columns", json: ["name": "y", "type": "text", "default": "'a'); DROP TABLE people; --"], token: token).status == 400)
            #expect(try await client.send("POST", "/tables/\(id)/columns", json: ["type": "text"], token: token).status == 422)
            // NOT NULL without default on a non-empty table fails like Postgres.
            let notNull = try await client.send("POST", "/tables/\(id)/columns", json: ["name": "age", "type": "integer", "nullable": false], token: token)
            #expect(notNull.status == 400)
            #expect(try await client.send("GET", "/tables/\(id)/data").json?["total"] == 1)
        }
    }

    @Test func updateColumnRenamesAndChangesTypeKeepingData() async throws {
        try await withEmulator { _, client in
            let token = try await client.adminToken()
            let id = try await client.newTable("metrics", schema: ["label": ["type": "text"], "value": ["type": "text"]], public: true, token: token)
            _ = try await client.send("POST", "/tables/\(id)/data", json: ["label": "a", "value": "42"], token: token)

            let renamed = try await client.send("PATCH", "/tables/\(id)/columns/value", json: ["new_name": "amount", "type": "integer"], token: token)
            #expect(renamed.status == 200)
            #expect(renamed.json == ["status": "column_updated", "column": "amount"])
            let row = try await client.send("GET", "/tables/\(id)/data").json?["data"]?.arrayValue?.first
            #expect(row?["amount"] == 42)
            #expect(row?["value"] == nil)

            #expect(try await client.send("PATCH", "/tables/\(id)/columns/amount", json: [:], token: token).json == ["status": "no_changes"])
            let notNull = try await client.send("PATCH", "/tables/\(id)/columns/amount", json: ["nullable": false], token: token)
            #expect(notNull.status == 200)
            let nullInsert = try await client.send("POST", "/tables/\(id)/data", json: ["label": "b"], token: token)
            #expect(nullInsert.status == 400)
            #expect(nullInsert.detail?.contains("not-null") == true)

            let badCast = try await client.send("PATCH", "/tables/\(id)/columns/label", json: ["type": "integer"], token: token)
            #expect(badCast.status == 400)
            #expect(try await client.send("GET", "/tables/\(id)/data").json?["data"]?.arrayValue?.first?["label"] == "a")
            #expect(try await client.send("PATCH", "/tables/\(id)/columns/ghost", json: ["nullable": true], token: token).status == 400)
            #expect(try await client.send("PATCH", "/tables/\(id)/columns/label", json: ["new_name": "amount"], token: token).status == 400)
        }
    }

    @Test func deleteColumn() async throws {
        try await withEmulator { _, client in
            let token = try await client.adminToken()
            let other = try await client.newUser("col-other@example.com")
            let id = try await client.newTable("shapes", schema: ["name": ["type": "text"], "sides": ["type": "integer"]], public: true, token: token)
            #expect(try await client.send("DELETE", "/tables/\(id)/columns/sides", token: other.token).status == 403)
            let deleted = try await client.send("DELETE", "/tables/\(id)/columns/sides", token: token)
            #expect(deleted.json == ["status": "column_deleted", "column": "sides"])
            #expect(try await client.send("DELETE", "/tables/\(id)/columns/sides", token: token).status == 404)
            let table = try await client.send("GET", "/tables/\(id)")
            #expect(table.json?["table_schema"]?.objectValue?.keys == ["name"])
            #expect(try await client.send("POST", "/tables/\(id)/data", json: ["sides": 3], token: token).status == 400)
        }
    }

    @Test func patchTableSchemaReshapesTheTable() async throws {
        try await withEmulator { _, client in
            let token = try await client.adminToken()
            let id = try await client.newTable("reshaped", schema: ["a": ["type": "text"], "b": ["type": "text"]], public: true, token: token)
            _ = try await client.send("POST", "/tables/\(id)/data", json: ["a": "1", "b": "2"], token: token)
            let patched = try await client.send(
                "PATCH",
                "/tables/\(id)",
                json: ["table_schema": ["a": ["type": "integer"], "c": ["type": "boolean"]]],
                token: token
            )
            #expect(patched.status == 200)
            let row = try await client.send("GET", "/tables/\(id)/data").json?["data"]?.arrayValue?.first
            #expect(row == ["a": 1, "c": nil])
        }
    }
}

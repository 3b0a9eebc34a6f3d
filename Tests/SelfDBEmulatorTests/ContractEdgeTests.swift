import Foundation
import Testing

@testable import SelfDBEmulator

/// The contract's "Validation and edge answers", checked against a running SelfDB v0.0.5,
/// as a table: each row is a rule, the request, and what the real server answers (or, where
/// the real server fails with a 500 on bad input, the 4xx the emulator answers instead).
/// An app tested on the emulator must never meet in production a rejection that the
/// emulator let through.
@Suite("Contract edge answers")
struct ContractEdgeTests {
    /// What a row needs from the running emulator.
    struct Context: Sendable {
        var client: APIClient
        var admin: String
        var user: (id: String, token: String)
        var refreshToken: String
        var tableID: String
        var bucketID: String
    }

    struct Row: Sendable {
        var rule: String
        var status: Int
        var request: @Sendable (Context) async throws -> APIResponse
        /// Further checks of the answer's shape; returns a problem or nil.
        var shape: (@Sendable (APIResponse) -> String?)?

        init(_ rule: String, _ status: Int, shape: (@Sendable (APIResponse) -> String?)? = nil, _ request: @escaping @Sendable (Context) async throws -> APIResponse) {
            self.rule = rule
            self.status = status
            self.request = request
            self.shape = shape
        }
    }

    static let issue422: @Sendable (APIResponse) -> String? = { response in
        response.json?["detail"]?.arrayValue?.isEmpty == false ? nil : "expected a list of validation issues, got \(response.text)"
    }

    static let rows: [Row] = [
        // Users
        Row("user create: empty firstName → 422", 422, shape: issue422) { c in
            try await c.client.send("POST", "/users/", json: ["email": "e1@x.io", "password": "Password123", "firstName": "", "lastName": "L"])
        },
        Row("user create: blank lastName → 422", 422, shape: issue422) { c in
            try await c.client.send("POST", "/users/", json: ["email": "e2@x.io", "password": "Password123", "firstName": "F", "lastName": "   "])
        },
        Row("user create: NUL in firstName → 422", 422, shape: issue422) { c in
            try await c.client.send("POST", "/users/", json: ["email": "e3@x.io", "password": "Password123", "firstName": "A\u{0}B", "lastName": "L"])
        },
        Row("user create: control character in lastName → 422", 422, shape: issue422) { c in
            try await c.client.send("POST", "/users/", json: ["email": "e4@x.io", "password": "Password123", "firstName": "F", "lastName": "L\u{1B}[31m"])
        },
        Row("user PATCH: empty firstName → 422", 422, shape: issue422) { c in
            try await c.client.send("PATCH", "/users/\(c.user.id)", json: ["firstName": ""], token: c.admin)
        },
        Row("user PATCH: NUL in lastName → 422", 422, shape: issue422) { c in
            try await c.client.send("PATCH", "/users/\(c.user.id)", json: ["lastName": "x\u{0}"], token: c.admin)
        },
        Row("user PATCH: isActive \"true\" is read leniently → 200", 200, shape: { $0.json?["isActive"] == true ? nil : $0.text }) { c in
            try await c.client.send("PATCH", "/users/\(c.user.id)", json: ["isActive": "true"], token: c.admin)
        },
        Row("user PATCH: isActive 1 is read leniently → 200", 200, shape: { $0.json?["isActive"] == true ? nil : $0.text }) { c in
            try await c.client.send("PATCH", "/users/\(c.user.id)", json: ["isActive": 1], token: c.admin)
        },
        Row("user PATCH: isActive \"maybe\" → 422", 422, shape: issue422) { c in
            try await c.client.send("PATCH", "/users/\(c.user.id)", json: ["isActive": "maybe"], token: c.admin)
        },
        // Buckets
        Row("bucket create: public null → 422", 422, shape: issue422) { c in
            try await c.client.send("POST", "/storage/buckets/", json: ["name": "nullpublic", "public": .null], token: c.admin)
        },
        Row("bucket create: 64-character name → 422", 422, shape: issue422) { c in
            try await c.client.send("POST", "/storage/buckets/", json: ["name": .string(String(repeating: "a", count: 64))], token: c.admin)
        },
        Row("bucket create: 63-character name → 201", 201) { c in
            try await c.client.send("POST", "/storage/buckets/", json: ["name": .string(String(repeating: "b", count: 63))], token: c.admin)
        },
        // Tables
        Row("table create: unknown column type → 422 (SelfDB: 500)", 422, shape: issue422) { c in
            try await c.client.send("POST", "/tables/", json: ["name": "badtype", "table_schema": ["a": ["type": "notatype"]]], token: c.admin)
        },
        Row("table create: JSON-Schema table_schema → 422 (SelfDB: 500)", 422, shape: issue422) { c in
            try await c.client.send(
                "POST",
                "/tables/",
                json: ["name": "jsonschema", "table_schema": ["type": "object", "properties": ["a": ["type": "string"]]]],
                token: c.admin
            )
        },
        Row("table PATCH: unknown column type in table_schema → 422", 422, shape: issue422) { c in
            try await c.client.send("PATCH", "/tables/\(c.tableID)", json: ["table_schema": ["a": ["type": "mystery"]]], token: c.admin)
        },
        Row("column add: unknown body keys are ignored → 200", 200, shape: { $0.json?["status"] == "column_added" ? nil : $0.text }) { c in
            try await c.client.send("POST", "/tables/\(c.tableID)/columns", json: ["name": "extra", "type": "text", "colour": "red"], token: c.admin)
        },
        Row("column update: unknown body keys are ignored → 200", 200) { c in
            try await c.client.send("PATCH", "/tables/\(c.tableID)/columns/extra", json: ["nullable": true, "colour": "red"], token: c.admin)
        },
        Row("column update: a column that does not exist → 400", 400) { c in
            try await c.client.send("PATCH", "/tables/\(c.tableID)/columns/nosuch", json: ["nullable": true], token: c.admin)
        },
        // Sessions
        Row("refresh: unknown body keys are ignored → 200", 200, shape: { $0.json?["access_token"]?.stringValue == nil ? $0.text : nil }) { c in
            try await c.client.send("POST", "/users/token/refresh", json: ["refresh_token": .string(c.refreshToken), "device": "x"])
        },
        Row("logout: refresh_token \"\" → 422", 422, shape: issue422) { c in
            try await c.client.send("POST", "/users/logout", json: ["refresh_token": ""], token: c.user.token)
        },
        Row("logout: unknown body keys are ignored → 200", 200) { c in
            try await c.client.send("POST", "/users/logout", json: ["everywhere": false], token: c.user.token)
        },
        Row("logout: a JSON null body → 200", 200, shape: { $0.json == ["status": "logged_out"] ? nil : $0.text }) { c in
            try await c.client.send("POST", "/users/logout", raw: Array("null".utf8), token: c.admin, headers: ["Content-Type": "application/json"])
        },
        // Bodies
        Row("JSON nested 1,000 levels → 4xx (SelfDB: 500)", 422) { c in
            let deep = String(repeating: "{\"a\":", count: 1_000) + "1" + String(repeating: "}", count: 1_000)
            return try await c.client.send("POST", "/storage/buckets/", raw: Array(deep.utf8), token: c.admin, headers: ["Content-Type": "application/json"])
        },
        // Storage
        Row("upload: empty body → 400 (SelfDB: 500)", 400) { c in
            try await c.client.send("POST", "/storage/files/upload", query: [("bucket_id", c.bucketID), ("filename", "empty.txt")], raw: [], token: c.admin)
        },
        Row("upload: a path with '..' → 400 (SelfDB: 500)", 400) { c in
            try await c.client.send(
                "POST",
                "/storage/files/upload",
                query: [("bucket_id", c.bucketID), ("filename", "x.txt"), ("path", "a/../../etc/x.txt")],
                raw: Array("x".utf8),
                token: c.admin
            )
        },
        Row("upload: filename= and path= empty → 201 as 'unnamed'", 201, shape: { $0.json?["path"] == "unnamed" ? nil : $0.text }) { c in
            try await c.client.send(
                "POST",
                "/storage/files/upload",
                query: [("bucket_id", c.bucketID), ("filename", ""), ("path", "")],
                raw: Array("x".utf8),
                token: c.admin
            )
        },
        // System
        Row(
            "system status: API key only → 200 with initialized and version",
            200,
            shape: { response in
                response.json?["version"] == "1.0.0" && response.json?["initialized"] == true ? nil : response.text
            }
        ) { c in
            try await c.client.send("GET", "/system/status")
        },
    ]

    @Test func everyRuleOfTheContractSection() async throws {
        try await withEmulator { _, client in
            // Before any login the instance is not initialized.
            let fresh = try await client.send("GET", "/system/status")
            #expect(fresh.status == 200)
            #expect(fresh.json == ["initialized": false, "version": "1.0.0"])
            #expect(try await client.send("GET", "/system/status", apiKey: .missing).status == 406)

            let admin = try await client.login(Fixture.adminEmail, Fixture.adminPassword)
            let user = try await client.newUser("edge@example.com")
            let context = Context(
                client: client,
                admin: admin.access,
                user: user,
                refreshToken: admin.refresh,
                tableID: try await client.newTable("edges", schema: ["a": ["type": "text"]], token: admin.access),
                bucketID: try await client.newBucket("edges", token: admin.access)
            )
            for row in Self.rows {
                let response = try await row.request(context)
                #expect(response.status == row.status, "\(row.rule): got \(response.status) \(response.text)")
                if let problem = row.shape?(response) {
                    Issue.record("\(row.rule): \(problem)")
                }
            }
            // Nothing the refused uploads asked for was stored.
            let files = try await client.send("GET", "/storage/files/", query: [("bucket_id", context.bucketID)], token: admin.access)
            #expect(files.json?["files"]?.arrayValue?.compactMap { $0["path"]?.stringValue } == ["unnamed"])
        }
    }

    /// Every route answers a method it does not serve — HEAD included — with 405 and an
    /// `Allow` header naming the methods it does serve.
    @Test func everyRouteAnswers405WithAllow() async throws {
        try await withEmulator { _, client in
            let token = try await client.adminToken()
            let routes = RouteBuilder.routes().routes
            var paths: [String: Set<String>] = [:]
            for route in routes {
                paths[Self.concretePath(route), default: []].insert(route.method.rawValue)
            }
            for (path, served) in paths.sorted(by: { $0.key < $1.key }) {
                for method in ["HEAD", "PUT", "GET", "POST", "PATCH", "DELETE"] where !served.contains(method) {
                    let response = try await client.send(method, path, token: token)
                    #expect(response.status == 405, "\(method) \(path): \(response.status)")
                    let allow = Set(response.header("Allow")?.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) } ?? [])
                    #expect(allow == served, "\(method) \(path): Allow \(allow) but serves \(served)")
                    if method == "HEAD" { #expect(response.body.isEmpty, "HEAD \(path) carried a body") }
                }
            }
        }
    }

    /// A path that matches the route's pattern: parameters filled with plausible values.
    static func concretePath(_ route: Route) -> String {
        let parts = route.segments.map { segment -> String in
            switch segment {
            case .literal(let text): text
            case .uuid: "00000000-0000-4000-8000-000000000000"
            case .parameter: "name"
            case .remainder: "dir/file.txt"
            }
        }
        return "/" + parts.joined(separator: "/") + (route.trailingSlash ? "/" : "")
    }

    @Test func uploadAnswersAsSelfDBDoes() async throws {
        try await withEmulator { _, client in
            let token = try await client.adminToken()
            let bucket = try await client.newBucket("shapes", token: token)
            let query = [("bucket_id", bucket), ("filename", "a.txt"), ("path", "docs/a.txt")]
            let first = try await client.send("POST", "/storage/files/upload", query: query, raw: Array("hello".utf8), token: token)
            #expect(first.status == 201)
            let json = try #require(first.json)
            // upload_time is the seconds the upload took: a number, never a timestamp.
            guard case .double(let seconds)? = json["upload_time"] else {
                Issue.record("upload_time is not a number: \(first.text)")
                return
            }
            #expect(seconds >= 0 && seconds < 60)
            #expect(json["url"] == "/api/storage/files/shapes/docs/a.txt")
            #expect(json.objectValue?.contains("original_path") == true)
            #expect(json["original_path"] == .null)
            #expect(json.objectValue?.keys == ["success", "bucket", "path", "size", "file_id", "upload_time", "url", "original_path", "message"])

            let second = try await client.send("POST", "/storage/files/upload", query: query, raw: Array("again".utf8), token: token)
            #expect(second.json?["path"] == "docs/a (1).txt")
            #expect(second.json?["original_path"] == "docs/a.txt")

            let id = try #require(json["file_id"]?.stringValue)
            let file = try await client.send("GET", "/storage/files/\(id)", token: token)
            #expect(file.json?["checksum_sha256"] == .null)
        }
    }
}

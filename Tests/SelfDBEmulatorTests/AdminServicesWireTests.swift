import Foundation
import Testing

@testable import EmulatorSupport
@testable import SelfDBEmulator

/// The answers of the admin services where the order of SelfDB's checks shows, byte for byte
/// as SelfDB v0.0.5 gave them (recorded from the real server with the kit, 2026-11-29):
/// unknown query parameters before the caller, a function's or webhook's existence before the
/// caller, the caller before the body, a malformed webhook id reported once per declaration.
@Suite("admin services: SelfDB's order of checks on the wire")
struct AdminServicesWireTests {
    static let uuidIssue: JSONValue = [
        "type": "uuid_parsing", "loc": ["path", "webhook_id"],
        "msg": "Input should be a valid UUID, invalid length: expected length 32 for simple format, found 3", "input": "abc",
        "ctx": ["error": "invalid length: expected length 32 for simple format, found 3"],
    ]

    @Test func functionsCheckQueryThenExistenceThenCallerThenBody() async throws {
        try await withEmulator { _, api in
            let admin = try await api.adminToken()
            let (_, user) = try await api.newUser("wire@example.com")
            let unknown = UUID().uuidString.lowercased()
            let list = try await api.send("GET", "/functions/", query: [("foo", "1")], token: user)
            #expect(list.status == 400 && list.detail == "Unknown query parameters: foo", "before the caller's role")
            let missing = try await api.send("GET", "/functions/\(unknown)", apiKey: .valid)
            #expect(missing.status == 404 && missing.detail == "Function not found", "before the caller: even with no user")
            #expect(try await api.send("GET", "/functions/abc", token: admin).status == 404, "no route for a malformed id")

            let created = try await api.send("POST", "/functions/", json: ["name": "hello", "code": "export default 1"], token: admin)
            let id = try #require(created.json?["id"]?.stringValue)
            let anonymous = try await api.send("GET", "/functions/\(id)")
            #expect(anonymous.status == 401 && anonymous.detail == "Not authenticated")
            let forbidden = try await api.send("PATCH", "/functions/\(id)", json: ["name": "1bad"], token: user)
            #expect(forbidden.status == 403 && forbidden.detail == "Admin access required for function management", "the caller before the body")
            let badJSON = try await api.send("POST", "/functions/", raw: Array("{bad".utf8), headers: ["Content-Type": "application/json"])
            #expect(badJSON.status == 422 && badJSON.issueTypes == ["json_invalid"], "a body that is not JSON before anything else")

            let bad = try await api.send("POST", "/functions/", json: ["name": "1bad", "code": "  ", "timeout_seconds": 2, "extra": 1], token: admin)
            #expect(bad.issueTypes == ["string_pattern_mismatch", "value_error", "greater_than_equal", "extra_forbidden"])
            #expect(bad.json?["detail"]?.arrayValue?[1]["ctx"] == ["error": [:]], "FastAPI encodes the ValueError itself: {}")
            let environment = try await api.send("PUT", "/functions/\(id)/env", json: ["env_vars": ["B": 2]], token: admin)
            #expect(environment.json?["detail"]?.arrayValue?.first?["loc"] == ["body", "env_vars", "B"])

            let callback = try await api.send("POST", "/functions/hello/execution-result", json: ["success": "yes", "execution_time_ms": true])
            #expect(callback.issueTypes == ["bool_type", "value_error"], "the callback needs no user, but a valid body")
            #expect(try await api.send("POST", "/functions/hello/execution-result", json: [:], apiKey: .missing).status == 406)
            let nulls = try await api.send("POST", "/functions/", json: ["name": "n", "code": "c", "timeout_seconds": nil], token: admin)
            #expect(nulls.issueTypes == ["int_type"], "a plain int with a default refuses null")
            let blank = try await api.send("POST", "/functions/", json: ["name": "n", "code": "\u{1C}"], token: admin)
            #expect(blank.issueTypes == ["value_error"], "Python's strip() takes U+001C for whitespace")
            let callbackNull = try await api.send("POST", "/functions/hello/execution-result", json: ["execution_id": nil])
            #expect(callbackNull.issueTypes == ["string_type"])
            let nonASCII = try await api.send("POST", "/functions/%C3%A9/execution-result", json: [:])
            #expect(nonASCII.status == 404 && nonASCII.detail == "Function not found")
        }
    }

    @Test func webhooksReportAMalformedIdOncePerDeclaration() async throws {
        try await withEmulator { _, api in
            let admin = try await api.adminToken()
            let (_, user) = try await api.newUser("hooks@example.com")
            #expect(try await api.send("GET", "/webhooks/abc").detail == "Not authenticated")
            #expect(try await api.send("GET", "/webhooks/abc", token: user).detail == "Admin access required for webhook management")
            let read = try await api.send("GET", "/webhooks/abc", token: admin)
            #expect(read.status == 422 && read.json?["detail"] == [Self.uuidIssue], "one declaration: its lookup")
            let patch = try await api.send("PATCH", "/webhooks/abc", json: ["name": ""], token: admin)
            #expect(patch.json?["detail"]?.arrayValue?.prefix(2).elementsEqual([Self.uuidIssue, Self.uuidIssue]) == true)
            #expect(patch.issueTypes == ["uuid_parsing", "uuid_parsing", "string_too_short"])
            let deliveries = try await api.send("GET", "/webhooks/abc/deliveries", query: [("limit", "0")], token: admin)
            #expect(deliveries.issueTypes == ["uuid_parsing", "uuid_parsing", "greater_than_equal"])
            let missing = try await api.send("GET", "/webhooks/\(UUID().uuidString.lowercased())")
            #expect(missing.status == 404 && missing.detail == "Webhook not found", "a well-formed id: existence before the caller")

            // The trigger is outside the API key, and only POST.
            let trigger = try await api.send("POST", "/webhooks/trigger/no-such", json: [:], apiKey: .missing)
            #expect(trigger.status == 404 && trigger.detail == "Webhook not found or inactive")
            #expect(try await api.send("POST", "/webhooks/trigger/a.b", apiKey: .missing).status == 404)
            let get = try await api.send("GET", "/webhooks/trigger/abc", apiKey: .missing)
            #expect(get.status == 405 && get.detail == "Method Not Allowed")
            #expect(try await api.send("GET", "/webhooks/", apiKey: .missing).status == 406, "everything else needs the key")
        }
    }

    @Test func sqlAndBackupsRefuseAsSelfDBDoes() async throws {
        try await withEmulator { emulator, api in
            let admin = try await api.adminToken()
            let (_, user) = try await api.newUser("sql@example.com")
            let body = try await api.send("POST", "/sql/query", json: [:], token: user)
            #expect(body.status == 403 && body.detail == "Admin access required for SQL operations", "the caller before the body")
            #expect(try await api.send("POST", "/sql/query", json: ["query": ""], token: admin).issueTypes == ["string_too_short"])
            let shared = try await api.send("POST", "/sql/snippets", json: ["name": "n", "sql_code": "s", "is_shared": nil], token: admin)
            #expect(shared.issueTypes == ["bool_type"])
            #expect(try await api.send("POST", "/sql/query", json: ["query": "select 'copy a\rb to program'"], token: admin).detail == "Query contains prohibited pattern for security reasons")
            #expect(try await api.send("POST", "/sql/query", json: [1], token: admin).issueTypes == ["model_attributes_type"])
            let extra = try await api.send("POST", "/sql/query", json: ["query": "select 1 as a", "x": 1], token: admin)
            #expect(extra.status == 200 && extra.json?["data"] == [["a": 1]], "unknown keys are ignored here")
            #expect(try await api.send("GET", "/sql/history", query: [("limit", "0")], token: admin).issueTypes == ["greater_than_equal"])
            #expect(try await api.send("DELETE", "/sql/snippets/abc", token: user).status == 403)
            #expect(try await api.send("DELETE", "/sql/snippets/abc", token: admin).issueTypes == ["uuid_parsing"])

            #expect(try await api.send("GET", "/backups").detail == "Not authenticated")
            #expect(try await api.send("POST", "/backups", token: user).detail == "Admin access required")
            let restoreGet = try await api.send("GET", "/backups/restore", token: admin)
            #expect(restoreGet.status == 405 && restoreGet.detail == "Method not allowed" && restoreGet.header("Allow") == "POST")
            let noBoundary = try await api.send("POST", "/backups/restore", raw: [0x61], headers: ["Content-Type": "multipart/form-data"])
            #expect(noBoundary.status == 400 && noBoundary.detail == "Missing boundary in multipart.")
            let noFile = try await api.send("POST", "/backups/restore")
            #expect(noFile.status == 422 && noFile.json?["detail"] == [["type": "missing", "loc": ["body", "file"], "msg": "Field required", "input": nil]])
            let form = Array("--XX\r\nContent-Disposition: form-data; name=\"file\"; filename=\"b.tar.gz\"\r\nContent-Type: application/gzip\r\n\r\nabc\r\n--XX--\r\n".utf8)
            let restore = try await api.send("POST", "/backups/restore", raw: form, headers: ["Content-Type": "multipart/form-data; boundary=XX"])
            #expect(restore.status == 403 && restore.detail == "System is already initialized. Restore is only available on fresh installs.")
            #expect(try await api.send("GET", "/backups/x/download", token: admin).detail == "Backup file not found")
            // An archive one level up, reached by an escaped `..`: SelfDB's name rules refuse it.
            let outside = emulator.dataDirectory.appendingPathComponent("selfdb_backup_20250101_000000.tar.gz")
            try Data([1]).write(to: outside)
            let escaped = try await api.send("DELETE", "/backups/..%2Fselfdb_backup_20250101_000000.tar.gz", token: admin)
            #expect(escaped.status == 404 && escaped.detail == "Backup file not found")
            #expect(FileManager.default.fileExists(atPath: outside.path), "nothing outside backups/ is deleted")
        }
    }

    /// A restore is spooled to disk as it arrives, as SelfDB's UploadFile spools one, and read
    /// in place: the file size limit bounds it, not memory.
    @Test func restoresAreSpooledAndBoundByTheFileLimit() async throws {
        try await withEmulator(maximumFileSize: 4096) { _, api in
            func form(_ archive: [UInt8]) -> [UInt8] {
                Array("--XX\r\nContent-Disposition: form-data; name=\"file\"; filename=\"b.tar.gz\"\r\n\r\n".utf8) + archive + Array("\r\n--XX--\r\n".utf8)
            }
            let headers = ["Content-Type": "multipart/form-data; boundary=XX"]
            // Bytes that look like the delimiter but do not follow a CRLF stay in the archive.
            let small = try await api.send("POST", "/backups/restore", raw: form(Array("ab--XXcd".utf8)), headers: headers)
            #expect(small.status == 400 && small.detail?.hasPrefix("Restore failed: the SelfDB emulator") == true)
            let empty = try await api.send("POST", "/backups/restore", raw: form([]), headers: headers)
            #expect(empty.status == 400 && empty.detail == "Uploaded file is empty")
            let large = try await api.send("POST", "/backups/restore", raw: form(Array(repeating: 7, count: 8192)), headers: headers)
            #expect(large.status == 413)
        }
    }
}

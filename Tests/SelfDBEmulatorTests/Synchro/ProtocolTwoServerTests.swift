import Foundation
import GRDB
import Testing

@testable import EmulatorSupport
@testable import SelfDBEmulator
@testable import SynchroEmulator

/// The emulator's protocol-2 server, spoken to over loopback as a client would
/// (`shared/contracts/synchro-v2.md` §2–§4).
@Suite("Synchro protocol 2: the emulator's server")
struct ProtocolTwoServerTests {
    /// The test users: ids a uuid owner column takes (the server keeps uuid values canonical).
    static let userA = "0a0a0a0a-0000-4000-8000-00000000000a"
    static let userB = "0b0b0b0b-0000-4000-8000-00000000000b"
    static let scopeA = "user:" + userA

    @Test("connect registers, assigns the user scope, and negotiates the schema (replace, then none)")
    func connectNegotiates() async throws {
        try await withProtocolTwoEmulator { _, fresh in
            var client = fresh
            let first = try await client.connect(schema: ["version": 0, "hash": ""])
            #expect(first.status == 200, "\(first.text)")
            let json = try #require(first.json)
            #expect(json["protocol_version"] == 2)
            #expect(json["scope_set_version"] == 1)
            #expect(json["schema"]?["action"] == "replace")
            #expect(json["schema"]?["hash"] == client.schema["hash"])
            #expect(json["schema_definition"]?["tables"]?.arrayValue?.map { $0["name"] } == ["comments", "tasks"])
            #expect(json["scopes"] == ["add": [["id": .string(Self.scopeA), "cursor": .null]], "remove": []])
            #expect(json["server_time"]?.stringValue?.count == 30, "nanoseconds and Z")

            // A warm client: same schema, the scope it holds, plus one it invented.
            client.cursors["invented"] = .some(nil)
            let second = try await client.connect()
            let warm = try #require(second.json)
            #expect(warm["schema"]?["action"] == "none")
            #expect(warm["schema_definition"] == nil)
            #expect(warm["scope_set_version"] == 1, "the assignment did not change")
            #expect(warm["scopes"] == ["add": [], "remove": ["invented"]])
        }
    }

    @Test("another protocol version is 426 upgrade_required in the envelope shape")
    func wrongProtocolVersion() async throws {
        try await withProtocolTwoEmulator { _, fresh in
            var client = fresh
            let response = try await client.connect(protocolVersion: 1)
            #expect(response.status == 426)
            #expect(response.json == ["error": ["code": "upgrade_required", "message": "unsupported protocol version", "retryable": false]])
        }
    }

    @Test("pull, push and rebuild need a connect first: 400 client is not registered")
    func registrationRequired() async throws {
        try await withProtocolTwoEmulator { _, client in
            let pull = try await client.pullPage()
            #expect(pull.status == 400)
            #expect(pull.json?["error"]?["code"] == "invalid_request")
            #expect(pull.json?["error"]?["message"] == "client is not registered")
            #expect(try await client.push([]).status == 400)
            let rebuild = try await client.post("/sync/rebuild", JSONObject([("scope", .string(Self.scopeA)), ("limit", 10)]))
            #expect(rebuild.json?["error"]?["message"] == "client is not registered")
        }
    }

    @Test("a pull or push with another schema is 422 schema_mismatch; exactly (0, \"\") skips the check")
    func schemaMismatch() async throws {
        try await withProtocolTwoEmulator { _, fresh in
            var client = fresh
            try await client.connect()
            let stale = try await client.pullPage(schema: ["version": 99, "hash": "old"])
            #expect(stale.status == 422)
            #expect(stale.json?["error"]?["code"] == "schema_mismatch")
            #expect(stale.json?["error"]?["retryable"] == false)
            #expect(try await client.push([], schema: ["version": 99, "hash": "old"]).status == 422)
            #expect(try await client.pullPage(schema: ["version": 0, "hash": ""]).status == 200)
        }
    }

    @Test("two devices converge: push, pull with signed cursors, rebuild, checksums that match")
    func twoDevicesConverge() async throws {
        try await withProtocolTwoEmulator { emulator, fresh in
            var phone = fresh
            var tablet = fresh.device("tablet")
            try await phone.connect()
            try await tablet.connect()
            let taskID = UUID().uuidString
            let written = "2026-03-20T18:21:54.120Z"
            let insert = try await phone.pushOne(Mutation2.task(taskID, user: Self.userA, title: "Hi", at: written))
            #expect(insert["status"] == "applied")
            #expect(insert["server_version"] == .string(written), "updated_at is the client_version")
            #expect(insert["server_row"]?["updated_at"] == .string(written))
            #expect(insert["server_row"]?["id"] == .string(taskID.lowercased()))
            #expect(insert["pk"] == ["id": .string(taskID)], "pk echoed as sent")
            let comment = UUID().uuidString.lowercased()
            #expect(
                try await phone.pushOne(
                    Mutation2.make("insert", "comments", comment, columns: .object(JSONObject([("id", .string(comment)), ("task_id", .string(taskID)), ("body", "first")])))
                )["status"] == "applied"
            )

            // The tablet has null cursors and the log is not empty: it rebuilds, then is current.
            let first = try await tablet.pullPage()
            #expect(first.json?["rebuild"] == [.string(Self.scopeA)])
            try await tablet.sync()
            #expect(tablet.held[Self.scopeA]?.count == 2)
            let quiet = try await tablet.pullPage()
            #expect(quiet.json?["changes"] == [])
            #expect(quiet.json?["has_more"] == false)
            #expect(quiet.json?["scope_cursors"] == [:], "a scope without changes keeps its cursor")
            #expect(quiet.json?["checksums"]?[Self.scopeA]?.stringValue == String(tablet.held[Self.scopeA]?.values.reduce(Int32(0), ^) ?? 0))

            // An edit on the tablet reaches the phone as one upsert with a new cursor.
            let edit = try await tablet.pushOne(
                Mutation2.make("update", "tasks", taskID, columns: ["title": "Edited"], base: written)
            )
            #expect(edit["status"] == "applied")
            try await phone.sync()
            let changes = try await phone.sync()
            #expect(changes.isEmpty, "nothing new after a sync")
            #expect(try emulator.syncedRow(table: "tasks", id: taskID.lowercased())?.values["title"] == .string("Edited"))
            // The tablet's own edit comes back to it too (a client may also apply server_row).
            try await tablet.sync()
            #expect(phone.held == tablet.held, "both devices hold the same rows with the same checksums")
        }
    }

    @Test("cursors: a forged or foreign one rebuilds the scope, one for another scope is 400")
    func cursorsAreChecked() async throws {
        try await withProtocolTwoEmulator { _, fresh in
            var client = fresh
            try await client.connectHoldingACursor(user: Self.userA)
            let good = try #require(client.cursors[Self.scopeA] ?? nil)

            var forged = client
            var parts = good.split(separator: ".").map(String.init)
            parts[2] = String(parts[2].reversed())
            forged.cursors[Self.scopeA] = .some(parts.joined(separator: "."))
            #expect(try await forged.pullPage().json?["rebuild"] == [.string(Self.scopeA)])
            forged.cursors[Self.scopeA] = .some("v2.workouts_user_u_123_889.sig")
            #expect(try await forged.pullPage().json?["rebuild"] == [.string(Self.scopeA)])

            var misplaced = client
            misplaced.cursors = [Self.scopeA: .some(good)]
            let otherScope = try await client.post(
                "/sync/pull",
                JSONObject([
                    ("schema", client.schema), ("scope_set_version", 1), ("limit", 10),
                    ("scopes", [Self.scopeA: ["cursor": .string("v2.onlytwo")]]),
                ])
            )
            #expect(otherScope.status == 400)
            #expect(otherScope.json?["error"]?["message"]?.stringValue?.hasPrefix("scope \(Self.scopeA) cursor is invalid") == true)
        }
    }

    @Test("last write wins with the 500 ms allowance; base_version equal to the row's wins; deletes are never conflicts")
    func conflictRule() async throws {
        try await withProtocolTwoEmulator(configure: { $0.syncClockSkewTolerance = nil }) { _, fresh in
            var client = fresh
            try await client.connect()
            let id = UUID().uuidString.lowercased()
            let stored = "2026-03-20T18:10:00.000Z"
            _ = try await client.pushOne(Mutation2.task(id, user: Self.userA, title: "Theirs", at: stored))

            let older = try await client.pushOne(Mutation2.make("update", "tasks", id, columns: ["title": "Mine"], clientVersion: "2026-03-20T18:00:00.000Z"))
            #expect(older["status"] == "conflict")
            #expect(older["code"] == "version_conflict")
            #expect(older["message"] == "server version is newer")
            #expect(older["server_row"]?["title"] == "Theirs")
            #expect(older["server_version"] == .string(stored))

            let withinAllowance = try await client.pushOne(
                Mutation2.make("update", "tasks", id, columns: ["title": "Close"], clientVersion: "2026-03-20T18:09:59.600Z")
            )
            #expect(withinAllowance["status"] == "applied", "client_version + 500 ms is after the row's")

            let ahead = try await client.pushOne(
                Mutation2.make("update", "tasks", id, columns: ["title": "Ahead"], clientVersion: "2026-03-21T00:00:00.000Z", base: "2026-03-22T00:00:00.000Z")
            )
            #expect(ahead["message"] == "client base version is ahead of server version")

            let current = try #require(withinAllowance["server_version"]?.stringValue)
            let sameBase = try await client.pushOne(
                Mutation2.make("update", "tasks", id, columns: ["title": "Based"], clientVersion: "2020-01-01T00:00:00.000Z", base: current)
            )
            #expect(sameBase["status"] == "applied", "a base equal to the row's updated_at wins whatever the client clock")

            let delete = try await client.pushOne(Mutation2.make("delete", "tasks", id, clientVersion: "2000-01-01T00:00:00.000Z"))
            #expect(delete["status"] == "applied")
            #expect(delete["server_row"]?["deleted_at"]?.stringValue != nil)
            let again = try await client.pushOne(Mutation2.make("delete", "tasks", id, clientVersion: nil))
            #expect(again["status"] == "applied", "a replayed delete")
            #expect(again["server_version"] == delete["server_version"])
            let update = try await client.pushOne(Mutation2.make("update", "tasks", id, columns: ["title": "x"]))
            #expect(update["message"] == "record has been deleted")
        }
    }

    @Test("every rejection code, and the whole batch refused for a bad timestamp")
    func rejections() async throws {
        try await withProtocolTwoEmulator { _, fresh in
            var client = fresh
            try await client.connect()
            let id = UUID().uuidString
            #expect(try await client.pushOne(Mutation2.task(id, user: Self.userA, title: "x"))["status"] == "applied")
            let exists = try await client.pushOne(Mutation2.task(id, user: Self.userA, title: "y"))
            #expect(exists["status"] == "conflict")
            #expect(exists["message"] == "record already exists")

            let unknownTable = try await client.pushOne(Mutation2.make("insert", "nope", "1", columns: ["a": 1]))
            #expect(unknownTable["status"] == "rejected_terminal")
            #expect(unknownTable["code"] == "table_not_synced")
            let missing = try await client.pushOne(Mutation2.make("update", "tasks", UUID().uuidString, columns: ["title": "x"]))
            #expect(missing["code"] == "validation_failed")
            #expect(missing["message"] == "record does not exist")
            let noKey = try await client.pushOne(
                .object(JSONObject([("mutation_id", "m"), ("table", "tasks"), ("op", "insert"), ("pk", ["id": 5]), ("client_version", .string(SyncTimestamp.now().text))]))
            )
            #expect(noKey["code"] == "validation_failed")
            let required = try await client.pushOne(Mutation2.make("insert", "tasks", UUID().uuidString, columns: ["user_id": .string(Self.userA)]))
            #expect(required["message"] == "missing required column title")

            let count = try await client.push([
                Mutation2.task(UUID().uuidString, user: Self.userA, title: "never"),
                Mutation2.make("update", "tasks", id, columns: ["title": "x"], clientVersion: "yesterday"),
            ])
            #expect(count.status == 400)
            #expect(count.json?["error"]?["code"] == "invalid_request")
            let noVersion = try await client.push([Mutation2.make("insert", "tasks", UUID().uuidString, columns: ["title": "x"], clientVersion: nil)])
            #expect(noVersion.status == 400)
            let badOp = try await client.push([Mutation2.make("merge", "tasks", id, columns: ["title": "x"])])
            #expect(badOp.status == 400)
        }
    }

    @Test("insert and upsert: a new record is written, a live one is a conflict or an update, a tombstone comes back")
    func insertAndUpsertOverEveryKindOfRow() async throws {
        try await withProtocolTwoEmulator { _, fresh in
            var client = fresh
            try await client.connect()
            // Upper case on the wire: the server keeps uuid keys in lower case, so the same
            // record is found whichever spelling comes.
            let id = UUID().uuidString
            let upsertNew = try await client.pushOne(
                Mutation2.make("upsert", "tasks", id, columns: .object(JSONObject([("user_id", .string(Self.userA)), ("title", "new")])))
            )
            #expect(upsertNew["status"] == "applied")
            #expect(upsertNew["server_row"]?["id"] == .string(id.lowercased()))
            #expect(upsertNew["server_row"]?["done"] == false, "the column's default is filled in")

            let insertOverLive = try await client.pushOne(Mutation2.task(id.lowercased(), user: Self.userA, title: "again"))
            #expect(insertOverLive["status"] == "conflict")
            #expect(insertOverLive["message"] == "record already exists")
            #expect(insertOverLive["server_row"]?["title"] == "new", "nothing written")
            let missingOverLive = try await client.pushOne(Mutation2.make("insert", "tasks", id, columns: ["user_id": .string(Self.userA)]))
            #expect(missingOverLive["message"] == "record already exists", "a live row answers before the missing title")

            let upsertOverLive = try await client.pushOne(Mutation2.make("upsert", "tasks", id, columns: ["title": "updated"]))
            #expect(upsertOverLive["status"] == "applied")
            #expect(upsertOverLive["server_row"]?["title"] == "updated")
            #expect(upsertOverLive["server_row"]?["user_id"] == .string(Self.userA), "an upsert over a row keeps the columns it does not send")

            let delete = try await client.pushOne(Mutation2.make("delete", "tasks", id, clientVersion: nil))
            #expect(delete["status"] == "applied")
            let resurrected = try await client.pushOne(Mutation2.task(id, user: Self.userA, title: "back"))
            #expect(resurrected["status"] == "applied")
            #expect(resurrected["server_row"]?["title"] == "back")
            #expect(resurrected["server_row"]?["deleted_at"] == .null)

            // Not UUIDs, so PostgreSQL refuses them, and 0.3.0 rolls the whole batch back.
            let badKey = try await client.push([Mutation2.task("not-a-uuid", user: Self.userA, title: "x")])
            #expect(badKey.status == 500)
            // An owner that is not a UUID is not the caller: refused before anything is written,
            // as the operator's hook refuses it (owner_only).
            let badOwner = try await client.pushOne(Mutation2.task(UUID().uuidString, user: Self.userA + "0", title: "x"))
            #expect(badOwner["code"] == "policy_rejected")
        }
    }

    /// SQLite cannot give an existing table a new primary key: a store kept from a spec that
    /// keyed the table otherwise has no unique constraint on the key the spec names now, and
    /// new records are looked up before they are written (an `ON CONFLICT` on that key would
    /// not even compile).
    @Test("a store kept from a spec with another primary key still takes new records and finds taken keys")
    func storeKeptFromASpecWithAnotherKey() async throws {
        let directory = SyncFixture.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        func spec(keyedBy key: String) throws -> URL {
            try SyncFixture.writeSpec(
                """
                spec: 1
                tables:
                  Note:
                    table: notes
                    sync: { owner: user_id }
                    columns:
                      id: { type: text\(key == "id" ? ", primaryKey: true" : "") }
                      code: { type: text\(key == "code" ? ", primaryKey: true" : "") }
                      user_id: { type: uuid, nullable: false }
                      updated_at: { type: timestamp, nullable: false }
                      deleted_at: timestamp
                """,
                in: directory,
                name: "notes-by-\(key).yaml"
            )
        }
        let data = directory.appendingPathComponent("data")
        let byID = try spec(keyedBy: "id")
        try await withProtocolTwoEmulator(configure: {
            $0.dataDirectory = data
            $0.syncSpecs.append(byID)
        }) { _, _ in }
        let byCode = try spec(keyedBy: "code")
        try await withProtocolTwoEmulator(configure: {
            $0.dataDirectory = data
            $0.syncSpecs.append(byCode)
        }) { _, fresh in
            var client = fresh
            try await client.connect()
            func insert(_ code: String) -> JSONValue {
                Mutation2.make("insert", "notes", code, key: "code", columns: ["id": .string(UUID().uuidString), "code": .string(code), "user_id": .string(Self.userA)])
            }
            let first = try await client.pushOne(insert("n1"))
            #expect(first["status"] == "applied")
            let again = try await client.pushOne(insert("n1"))
            #expect(again["status"] == "conflict")
            #expect(again["message"] == "record already exists")
        }
    }

    @Test("read-only tables reject every mutation with policy_rejected")
    func readOnlyTable() async throws {
        let directory = SyncFixture.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let spec = try SyncFixture.writeSpec(
            """
            spec: 1
            tables:
              Region:
                table: regions
                sync: { owner: user_id, push: disabled }
                columns:
                  id: { type: uuid, primaryKey: true }
                  user_id: { type: uuid, nullable: false }
                  name: text
                  updated_at: { type: timestamp, nullable: false }
                  deleted_at: timestamp
            """,
            in: directory
        )
        try await withProtocolTwoEmulator(configure: { $0.syncSpecs.append(spec) }) { _, fresh in
            var client = fresh
            try await client.connect()
            let entry = try await client.pushOne(Mutation2.make("insert", "regions", UUID().uuidString, columns: ["name": "x"]))
            #expect(entry["status"] == "rejected_terminal")
            #expect(entry["code"] == "policy_rejected")
            let delete = try await client.pushOne(Mutation2.make("delete", "regions", UUID().uuidString))
            #expect(delete["code"] == "policy_rejected", "deletes too")
        }
    }

    @Test("pages: a limited pull has no checksums until its last page; a rebuild pages with a final cursor and checksum")
    func paging() async throws {
        try await withProtocolTwoEmulator { _, fresh in
            var writer = fresh
            try await writer.connectHoldingACursor(user: Self.userA)
            #expect(writer.cursors[Self.scopeA] ?? nil != nil)
            for index in 0..<5 {
                _ = try await writer.pushOne(Mutation2.task(UUID().uuidString, user: Self.userA, title: "task \(index)"))
            }
            let page = try await writer.pullPage(limit: 2)
            #expect(page.json?["has_more"] == true)
            #expect(page.json?["checksums"] == nil, "absent, not null, before the last page")
            #expect(page.json?["changes"]?.arrayValue?.count == 2)
            try await writer.sync(limit: 2)
            #expect(writer.held[Self.scopeA]?.count == 6)

            var reader = fresh.device("reader")
            try await reader.connect()
            let rebuilt = try await reader.rebuild(Self.scopeA, limit: 2)
            #expect(rebuilt.records == 6)
            #expect(rebuilt.pages == 3)
            let notMine = try await reader.post("/sync/rebuild", JSONObject([("scope", "user:someone-else"), ("limit", 10)]))
            #expect(notMine.json?["error"]?["message"] == "client is not subscribed to scope user:someone-else")
        }
    }

    @Test("a page of a thousand rows, read a few hundred keys per statement, carries every row and matches its checksum")
    func aLargePage() async throws {
        try await withProtocolTwoEmulator { _, fresh in
            var writer = fresh
            try await writer.connectHoldingACursor(user: Self.userA)
            let ids = (0..<1_000).map { _ in UUID().uuidString }
            let pushed = try await writer.push(ids.enumerated().map { Mutation2.task($1, user: Self.userA, title: "task \($0)") })
            #expect(pushed.json?["accepted"]?.arrayValue?.count == 1_000)
            let changes = try await writer.sync(limit: 1_000)
            #expect(changes.count == 1_000)
            #expect(Set(changes.compactMap { $0["pk"]?["id"]?.stringValue }) == Set(ids.map { $0.lowercased() }))
            #expect(changes.allSatisfy { $0["row"]?["title"]?.stringValue?.hasPrefix("task ") == true })
            #expect(writer.held[Self.scopeA]?.count == 1_001)
        }
    }

    @Test("a row that leaves the scope is a delete without a row; a soft delete is a tombstone; the checksum drops both")
    func leavingTheScope() async throws {
        try await withProtocolTwoEmulator { emulator, fresh in
            var client = fresh
            try await client.connect()
            try await client.sync()
            let moving = UUID().uuidString.lowercased()
            let deleted = UUID().uuidString.lowercased()
            _ = try await client.pushOne(Mutation2.task(moving, user: Self.userA, title: "mine for now"))
            _ = try await client.pushOne(Mutation2.task(deleted, user: Self.userA, title: "to delete"))
            try await client.sync()
            #expect(client.held[Self.scopeA]?.count == 2)

            // Moved by the operator: a user may not give a row away (owner_only).
            try emulator.writeSyncedRow(table: "tasks", values: ["id": .string(moving), "user_id": .string(Self.userB)])
            _ = try await client.pushOne(Mutation2.make("delete", "tasks", deleted))
            let changes = try await client.sync()
            let left = try #require(changes.first { $0["pk"]?["id"] == .string(moving) })
            #expect(left["op"] == "delete")
            #expect(left["row"] == nil, "membership loss carries no row")
            let tombstone = try #require(changes.last { $0["pk"]?["id"] == .string(deleted) })
            #expect(tombstone["op"] == "delete")
            #expect(tombstone["row"]?["deleted_at"]?.stringValue != nil)
            #expect(client.held[Self.scopeA]?.isEmpty == true)

            // The row is now in user-b's scope.
            var other = try await ProtocolTwoClient(try client.http.asUser(Self.userB, emulator: emulator))
            try await other.connect()
            try await other.sync()
            #expect(other.held["user:" + Self.userB]?.keys.sorted() == ["tasks|\(moving)"])
        }
    }

    @Test("error shapes and the order of the checks: version gate, route, auth, method")
    func errorShapes() async throws {
        try await withProtocolTwoEmulator(configure: { $0.syncMinimumAppVersion = "1.0.0" }) { _, client in
            let unknown = try await client.http.send("POST", "/sync/register", json: [:])
            #expect(unknown.status == 404)
            #expect(unknown.text == "404 page not found\n")
            let anonymous = try await client.http.send("GET", "/sync/connect", credentials: .none)
            #expect(anonymous.status == 401)
            #expect(anonymous.json == ["error": "missing or malformed authorization header"])
            let wrongMethod = try await client.http.send("GET", "/sync/connect")
            #expect(wrongMethod.status == 405)
            #expect(wrongMethod.header("Allow") == "POST")
            let badToken = try await client.http.send("POST", "/sync/pull", json: [:], credentials: .token("nope"))
            #expect(badToken.json == ["error": "invalid token"])
            let old = try await client.http.send("GET", "/sync/schema", credentials: .none, headers: ["X-Client-Version": "0.9.0", "X-App-Version": "2.0.0"])
            #expect(old.status == 426, "X-Client-Version first, on every path, before auth")
            #expect(old.json == ["error": "client upgrade required"])
            let notObject = try await client.http.send("POST", "/sync/pull", raw: Array("[1]".utf8))
            #expect(notObject.json == ["error": "invalid request body"])
            let noClient = try await client.http.send("POST", "/sync/pull", json: [:])
            #expect(noClient.json == ["error": "client_id is required"])
            let tables = try await client.http.send("GET", "/sync/tables", credentials: .none)
            #expect(tables.json?["tables"]?.arrayValue?.first?["pk_column"] == "id")
        }
    }

    @Test("a row with fractions and nested JSON is served whole, with the checksum of its canonical form, by pull and rebuild")
    func servedRowsOfEveryKind() async throws {
        let directory = SyncFixture.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let spec = try SyncFixture.writeSpec(
            """
            spec: 1
            tables:
              Reading:
                table: readings
                sync: { owner: user_id }
                columns:
                  id: { type: uuid, primaryKey: true }
                  user_id: { type: uuid, nullable: false }
                  value: float
                  details: json
                  note: text
                  updated_at: { type: timestamp, nullable: false }
                  deleted_at: timestamp
            """,
            in: directory
        )
        try await withProtocolTwoEmulator(configure: { $0.syncSpecs.append(spec) }) { _, fresh in
            var client = fresh
            try await client.connectHoldingACursor(user: Self.userA)
            let plain = UUID().uuidString.lowercased()
            let nested = UUID().uuidString.lowercased()
            let details: JSONValue = .object(JSONObject([("b", .int(1)), ("a", .array([.double(1.5), .string("x\"y")]))]))
            for (id, columns) in [
                (plain, JSONObject([("user_id", .string(Self.userA)), ("note", .string("line\nbreak"))])),
                (nested, JSONObject([("user_id", .string(Self.userA)), ("value", .double(10)), ("details", details)])),
            ] {
                let entry = try await client.pushOne(Mutation2.make("insert", "readings", id, columns: .object(columns)))
                try #require(entry["status"] == "applied", "\(entry)")
            }
            let page = try #require(try await client.pullPage().json)
            let rows = Dictionary(
                uniqueKeysWithValues: (page["changes"]?.arrayValue ?? []).filter { $0["table"] == "readings" }.map { ($0["pk"]?["id"]?.stringValue ?? "", $0) }
            )
            try #require(rows.count == 2)
            #expect(rows[plain]?["row"]?["note"] == "line\nbreak")
            #expect(rows[nested]?["row"]?["value"] == .double(10))
            #expect(rows[nested]?["row"]?["details"]?["a"] == .array([.double(1.5), .string("x\"y")]))
            for (id, change) in rows {
                let row = try #require(change["row"])
                #expect(change["row_checksum"]?.intValue == Int64(RowChecksum.of(row)), "\(id): the checksum of the row as received")
            }
            var reader = fresh.device("reader")
            try await reader.connect()
            #expect(try await reader.rebuild(Self.scopeA).records == 3, "the rebuild's checksums add up (the task and both readings)")
            for id in [plain, nested] {
                #expect(reader.held[Self.scopeA]?["readings|" + id] == rows[id]?["row_checksum"]?.intValue.map { Int32(truncatingIfNeeded: $0) })
            }
        }
    }

    /// Protocol 2 reads rows through their memberships: its pushes do not keep protocol 1's
    /// index by owner; protocol 1, served from the same folder later, builds it.
    @Test("the owner index is protocol 1's: built when protocol 1 serves a folder protocol 2 wrote, rows kept")
    func ownerIndexIsProtocolOnes() async throws {
        let directory = SyncFixture.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let data = directory.appendingPathComponent("data")
        let file = data.appendingPathComponent("synchro.sqlite").path
        func ownerIndexes() throws -> [String] {
            try DatabaseQueue(path: file).read { db in
                try String.fetchAll(db, sql: "SELECT name FROM sqlite_master WHERE type = 'index' AND name LIKE '%_owner' AND tbl_name LIKE '_synchro_row_%'")
            }
        }
        let id = UUID().uuidString.lowercased()
        try await withProtocolTwoEmulator(configure: { $0.dataDirectory = data }) { _, fresh in
            var client = fresh
            try await client.connect()
            #expect(try await client.pushOne(Mutation2.task(id, user: Self.userA, title: "kept"))["status"] == "applied")
        }
        #expect(try ownerIndexes().isEmpty)
        let count = try await withSyncEmulator(configure: { $0.dataDirectory = data }) { emulator, _ in
            try emulator.syncedRowCount(table: "tasks", userID: Self.userA)
        }
        #expect(count == 1)
        #expect(try ownerIndexes().sorted() == ["_synchro_row_comments_owner", "_synchro_row_tasks_owner"])
    }
}

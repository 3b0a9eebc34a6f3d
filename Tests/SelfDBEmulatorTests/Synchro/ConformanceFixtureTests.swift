import Foundation
import Testing

@testable import EmulatorSupport
@testable import SelfDBEmulator

/// The facts of Synchro's conformance corpus (`conformance/` at 0.3.0, commit 37ad227), asked of
/// the emulator's protocol-2 server over loopback. Where a fixture and the real 0.3.0 server
/// disagree (`shared/contracts/synchro-v2.md` §7, §9), the real server wins; each such point is
/// asserted as the server behaves, with a comment naming the divergence. The fixtures' ids
/// (`workouts_user:u_123`, `w_1`) stand for the tasks spec's: the scope `user:<uuid>`, uuid rows.
@Suite("Synchro conformance fixtures: the emulator's server")
struct ConformanceFixtureTests {
    static let user = ProtocolTwoServerTests.userA
    static let scope = ProtocolTwoServerTests.scopeA
    /// A cursor as the fixtures write them: illustrative, not a token any server issued.
    static let illustrativeCursor = "v2.workouts_user_u_123_889.sig"

    /// A connect body with every field the contract requires.
    static func connectBody(protocolVersion: Int64 = 2, schema: JSONValue, scopeSetVersion: Int64, known: [String: String?]) -> JSONObject {
        var scopes = JSONObject()
        for (id, cursor) in known.sorted(by: { $0.key < $1.key }) {
            scopes[id] = ["cursor": cursor.map(JSONValue.string) ?? .null]
        }
        return JSONObject([
            ("platform", "ios"), ("app_version", "1.4.0"), ("protocol_version", .int(protocolVersion)),
            ("schema", schema), ("scope_set_version", .int(scopeSetVersion)), ("known_scopes", .object(scopes)),
        ])
    }

    /// A pull body with these scopes and cursors.
    static func pullBody(schema: JSONValue, scopes: [String: String?], limit: Int64 = 100) -> JSONObject {
        var object = JSONObject()
        for (id, cursor) in scopes.sorted(by: { $0.key < $1.key }) {
            object[id] = ["cursor": cursor.map(JSONValue.string) ?? .null]
        }
        return JSONObject([("schema", schema), ("scope_set_version", 1), ("scopes", .object(object)), ("limit", .int(limit))])
    }

    /// The XOR of row checksums, as a scope checksum is written on the wire: a decimal int32.
    static func decimalXOR(_ checksums: some Sequence<Int32>) -> String {
        String(checksums.reduce(Int32(0), ^))
    }

    // MARK: - protocol/

    @Test("protocol/connect-none: same schema and known scopes → action none, scope_set_version unchanged, empty add and remove, no schema_definition")
    func connectNone() async throws {
        try await withProtocolTwoEmulator { _, client in
            // A client's first connect is not the fixture's case: it gets replace and its scope in add.
            let first = try await client.post("/sync/connect", Self.connectBody(schema: ["version": 0, "hash": ""], scopeSetVersion: 0, known: [:]))
            #expect(first.status == 200, "\(first.text)")
            let fresh = try #require(first.json)
            #expect(fresh["schema"]?["action"] == "replace")
            #expect(fresh["scopes"]?["add"] == [["id": .string(Self.scope), "cursor": .null]])
            let setVersion = try #require(fresh["scope_set_version"]?.intValue)
            let version = try #require(fresh["schema"]?["version"])
            let hash = try #require(fresh["schema"]?["hash"])

            // The second connect sends back what it got. Connect does not check cursors, so the
            // fixture's illustrative one is sent as it is (a pull would rebuild the scope).
            let second = try await client.post(
                "/sync/connect",
                Self.connectBody(schema: ["version": version, "hash": hash], scopeSetVersion: setVersion, known: [Self.scope: Self.illustrativeCursor])
            )
            #expect(second.status == 200, "\(second.text)")
            let warm = try #require(second.json)
            #expect(warm["protocol_version"] == 2)
            #expect(warm["schema"] == ["version": version, "hash": hash, "action": "none"])
            #expect(warm["scope_set_version"] == .int(setVersion))
            #expect(warm["scopes"] == ["add": [], "remove": []])
            #expect(warm["schema_definition"] == nil)
            #expect(warm["server_time"]?.stringValue?.hasSuffix("Z") == true)
        }
    }

    @Test("protocol/connect-rebuild-local: an older schema → replace with the schema_definition; newly assigned scopes start with a null cursor")
    func connectRebuildLocal() async throws {
        try await withProtocolTwoEmulator { _, client in
            // The fixture's request: an old schema, a scope set version and a scope the server
            // never assigned.
            let response = try await client.post(
                "/sync/connect",
                Self.connectBody(schema: ["version": 7, "hash": "3b6f9f2f"], scopeSetVersion: 12, known: ["exercises_public": "v2.exercises_public_201.sig"])
            )
            #expect(response.status == 200, "\(response.text)")
            let json = try #require(response.json)
            // Divergence: the fixture says rebuild_local; the 0.3.0 server only ever answers none or replace.
            #expect(json["schema"]?["action"] == "replace")
            #expect(json["schema"]?["version"] == client.schema["version"])
            #expect(json["schema"]?["hash"] == client.schema["hash"])
            let tables = try #require(json["schema_definition"]?["tables"]?.arrayValue)
            #expect(tables.map { $0["name"] } == ["comments", "tasks"])
            #expect(tables.allSatisfy { ($0["columns"]?.arrayValue?.isEmpty) == false })
            #expect(json["scopes"]?["add"] == [["id": .string(Self.scope), "cursor": .null]])
            // The server alone assigns scopes: one the client holds but was never assigned goes.
            #expect(json["scopes"]?["remove"] == ["exercises_public"])
            // Divergence: the fixture's 12 → 13; the real server ignores the client's value, and its
            // own counter starts at 1 for a new client and moves only when the assignment changes.
            #expect(json["scope_set_version"] == 1)
        }
    }

    @Test("protocol/connect-unsupported: protocol_version 1 → HTTP 426 upgrade_required, not action unsupported; the client is not registered")
    func connectUnsupported() async throws {
        try await withProtocolTwoEmulator { _, client in
            let response = try await client.post(
                "/sync/connect",
                Self.connectBody(protocolVersion: 1, schema: ["version": 4, "hash": "deadbeef"], scopeSetVersion: 2, known: [:])
            )
            // Divergence: the fixture answers 200 with schema.action unsupported; the real server 426.
            #expect(response.status == 426, "\(response.text)")
            let json = try #require(response.json)
            #expect(json["error"]?["code"] == "upgrade_required")
            #expect(json["error"]?["retryable"] == false)
            #expect(json["schema"] == nil)
            #expect(json["schema_definition"] == nil)

            // No normal sync after it: the refused connect registered nothing.
            let pull = try await client.post("/sync/pull", Self.pullBody(schema: client.schema, scopes: [Self.scope: nil]))
            #expect(pull.status == 400)
            #expect(pull.json?["error"]?["message"] == "client is not registered")
        }
    }

    @Test("protocol/error-upgrade-required: HTTP 426, error.code upgrade_required, retryable false (the app-version gate's 426 has the short shape)")
    func errorUpgradeRequired() async throws {
        try await withProtocolTwoEmulator(configure: { $0.syncMinimumAppVersion = "1.0.0" }) { _, client in
            let body = Self.connectBody(protocolVersion: 1, schema: client.schema, scopeSetVersion: 0, known: [:])
            let envelope = try await client.post("/sync/connect", body)
            #expect(envelope.status == 426)
            #expect(envelope.header("Content-Type")?.hasPrefix("application/json") == true)
            #expect(envelope.json?["error"]?["code"] == "upgrade_required")
            #expect(envelope.json?["error"]?["retryable"] == false)
            // The fixture's message is illustrative; the real server's is this one.
            #expect(envelope.json?["error"]?["message"] == "unsupported protocol version")

            // Divergence: the fixture's envelope; the real version gate answers {"error": "<text>"}.
            var stamped = body
            stamped["client_id"] = .string(client.http.clientID)
            let gated = try await client.http.send("POST", "/sync/connect", json: .object(stamped), headers: ["X-App-Version": "0.9.0"])
            #expect(gated.status == 426)
            #expect(gated.json == ["error": "client upgrade required"])
        }
    }

    @Test("protocol/pull-required-checksums: a final no-op page has empty changes and the checksums, decimal int32 strings")
    func pullRequiredChecksums() async throws {
        try await withProtocolTwoEmulator { _, fresh in
            var client = fresh
            try await client.connect()
            // Nothing logged yet: a null cursor is served from the start, an empty scope's checksum is "0".
            let empty = try #require(try await client.pullPage().json)
            #expect(empty["changes"] == [])
            #expect(empty["has_more"] == false)
            #expect(empty["rebuild"] == [])
            #expect(empty["checksums"] == [Self.scope: "0"])

            for title in ["one", "two"] {
                _ = try await client.pushOne(Mutation2.task(UUID().uuidString, user: Self.user, title: title))
            }
            try await client.sync()
            let page = try await client.pullPage(limit: 100)
            #expect(page.status == 200, "\(page.text)")
            let json = try #require(page.json)
            #expect(json["changes"] == [])
            #expect(json["has_more"] == false)
            #expect(json["rebuild"] == [])
            #expect(json["scope_updates"] == ["add": [], "remove": []])
            #expect(json["scope_set_version"] == 1)
            // Divergence: the fixture echoes the unchanged cursor; the real server lists only scopes
            // that had entries in the page (an absent scope keeps its cursor).
            #expect(json["scope_cursors"] == [:])
            // Divergence: the fixture's "cs_a19d"; a real checksum is the decimal int32 of the XOR.
            let checksum = try #require(json["checksums"]?[Self.scope]?.stringValue)
            #expect(Int32(checksum) != nil)
            #expect(checksum == Self.decimalXOR((client.held[Self.scope] ?? [:]).values))
            #expect(client.held[Self.scope]?.count == 2)
        }
    }

    // MARK: - mutations/

    @Test("mutations/push-mixed-accept-reject: one push accepts an insert with its server_version and rejects a conflict; every mutation resolves once")
    func pushMixedAcceptReject() async throws {
        try await withProtocolTwoEmulator { emulator, fresh in
            var client = fresh
            try await client.connect()
            let stored = "2026-03-20T18:10:00.000Z"
            let existing = UUID().uuidString.lowercased()
            let deleted = UUID().uuidString.lowercased()
            _ = try await client.pushOne(Mutation2.task(existing, user: Self.user, title: "Theirs", at: stored))
            _ = try await client.pushOne(Mutation2.task(deleted, user: Self.user, title: "To delete", at: stored))

            let inserted = UUID().uuidString.lowercased()
            let written = "2026-03-20T18:21:54.120Z"
            let response = try await client.push([
                Mutation2.make(
                    "insert",
                    "tasks",
                    inserted,
                    columns: .object(JSONObject([("user_id", .string(Self.user)), ("title", "Lower Body")])),
                    clientVersion: written,
                    mutationID: "m_001"
                ),
                Mutation2.make("update", "tasks", existing, columns: ["title": "Mine"], clientVersion: "2026-03-20T18:00:00.000Z", mutationID: "m_002"),
                // Divergence: the fixture's delete with an old base_version is a conflict; the real
                // server never checks deletes (and its base_version must be RFC 3339, not "sv_777").
                Mutation2.make("delete", "tasks", deleted, clientVersion: written, base: "2026-03-01T00:00:00.000Z", mutationID: "m_003"),
            ])
            #expect(response.status == 200, "\(response.text)")
            let accepted = try #require(response.json?["accepted"]?.arrayValue)
            let rejected = try #require(response.json?["rejected"]?.arrayValue)
            #expect(accepted.map { $0["mutation_id"] } == ["m_001", "m_003"])
            #expect(rejected.map { $0["mutation_id"] } == ["m_002"])

            let insert = accepted[0]
            #expect(insert["table"] == "tasks")
            #expect(insert["pk"] == ["id": .string(inserted)])
            #expect(insert["status"] == "applied")
            #expect(insert["server_version"] == .string(written), "the canonical server_version: updated_at, from client_version")
            #expect(insert["server_row"]?["title"] == "Lower Body")

            let conflict = rejected[0]
            #expect(conflict["status"] == "conflict")
            #expect(conflict["code"] == "version_conflict", "an inspectable rejection code")
            #expect(conflict["pk"] == ["id": .string(existing)])
            #expect(conflict["server_row"]?["title"] == "Theirs", "the authoritative row")
            #expect(conflict["server_version"] == .string(stored))

            #expect(accepted[1]["status"] == "applied")
            #expect(accepted[1]["server_row"]?["deleted_at"]?.stringValue != nil)
            #expect(try emulator.syncedRow(table: "tasks", id: inserted) != nil)

            // Divergence: the fixture's insert has no client_version; the real server refuses the
            // whole batch with 400, the valid mutation beside it included.
            let untouched = UUID().uuidString.lowercased()
            let missingVersion = try await client.push([
                Mutation2.task(untouched, user: Self.user, title: "never"),
                Mutation2.make("insert", "tasks", UUID().uuidString, columns: ["title": "Lower Body"], clientVersion: nil, mutationID: "m_001"),
            ])
            #expect(missingVersion.status == 400)
            #expect(missingVersion.json?["error"]?["code"] == "invalid_request")
            #expect(try emulator.syncedRow(table: "tasks", id: untouched) == nil, "nothing of the batch applied")
            // So does the fixture's base_version "sv_777", which is not RFC 3339.
            let opaqueBase = try await client.push([Mutation2.make("delete", "tasks", existing, base: "sv_777", mutationID: "m_003")])
            #expect(opaqueBase.status == 400)
        }
    }

    // MARK: - scopes/

    @Test("scopes/pull-delta-and-rebuild: one page carries changes, cursors and checksums; a foreign cursor is listed in rebuild; scope_updates add and remove")
    func pullDeltaAndRebuild() async throws {
        try await withProtocolTwoEmulator { _, fresh in
            var client = fresh
            try await client.connectHoldingACursor(user: Self.user, title: "earlier")
            let before = try #require(client.cursors[Self.scope] ?? nil)

            let id = UUID().uuidString.lowercased()
            _ = try await client.pushOne(Mutation2.task(id, user: Self.user, title: "Tempo Run"))
            let page = try await client.pullPage(limit: 500)
            #expect(page.status == 200, "\(page.text)")
            let json = try #require(page.json)
            let changes = try #require(json["changes"]?.arrayValue)
            #expect(changes.count == 1)
            let change = try #require(changes.first)
            #expect(change["scope"] == .string(Self.scope))
            #expect(change["table"] == "tasks")
            #expect(change["op"] == "upsert")
            #expect(change["pk"] == ["id": .string(id)])
            #expect(change["row"]?["title"] == "Tempo Run")
            let rowChecksum = try #require(change["row_checksum"]?.intValue)
            #expect(change["server_version"]?.stringValue != nil)
            let after = try #require(json["scope_cursors"]?[Self.scope]?.stringValue)
            #expect(after != before, "the cursor advances with the change applied")
            #expect(json["rebuild"] == [])
            #expect(json["has_more"] == false)
            let held = Array((client.held[Self.scope] ?? [:]).values) + [Int32(truncatingIfNeeded: rowChecksum)]
            #expect(json["checksums"] == [Self.scope: .string(Self.decimalXOR(held))], "final pages carry the active scopes' checksums")
            // Divergence: the fixture's scope_set_version moves 13 → 14 with an added shared scope; the
            // tasks spec assigns only the user scope, so the assignment and its version stay.
            #expect(json["scope_set_version"] == 1)
            #expect(json["scope_updates"] == ["add": [], "remove": []])

            // The fixture's cursors are illustrative: a real server cannot verify them and asks for a
            // rebuild, explicitly; a scope the server never assigned is removed.
            let foreign = try await client.post(
                "/sync/pull",
                Self.pullBody(schema: client.schema, scopes: [Self.scope: Self.illustrativeCursor, "exercises_user:u_123": "v2.exercises_user_u_123_050.sig"])
            )
            #expect(foreign.status == 200, "\(foreign.text)")
            #expect(foreign.json?["rebuild"] == [.string(Self.scope)])
            #expect(foreign.json?["scope_updates"] == ["add": [], "remove": ["exercises_user:u_123"]])
            #expect(foreign.json?["changes"] == [])
            #expect(foreign.json?["checksums"] == [:], "a scope to rebuild has no checksum on the page")

            // An assigned scope the client does not send comes in scope_updates.add, with a null cursor.
            let missing = try await client.post("/sync/pull", Self.pullBody(schema: client.schema, scopes: [:]))
            #expect(missing.json?["scope_updates"] == ["add": [["id": .string(Self.scope), "cursor": .null]], "remove": []])
        }
    }

    @Test("scopes/rebuild-single-scope: pages without a final cursor or checksum, then a final page with cursor null, final_scope_cursor and the checksum")
    func rebuildSingleScope() async throws {
        try await withProtocolTwoEmulator { _, fresh in
            var client = fresh
            try await client.connect()
            for index in 0..<3 {
                _ = try await client.pushOne(Mutation2.task(UUID().uuidString, user: Self.user, title: "task \(index)"))
            }
            var received: [String: Int32] = [:]
            var cursor: JSONValue = .null
            var intermediate: [String] = []
            var last: JSONValue?
            for _ in 0..<10 {
                let response = try await client.post("/sync/rebuild", JSONObject([("scope", .string(Self.scope)), ("cursor", cursor), ("limit", 1)]))
                #expect(response.status == 200, "\(response.text)")
                let page = try #require(response.json)
                #expect(page["scope"] == .string(Self.scope))
                let records = try #require(page["records"]?.arrayValue)
                #expect(records.count <= 1)
                for record in records {
                    #expect(record["row"] != nil && record["server_version"]?.stringValue != nil)
                    let key = try #require(ProtocolTwoClient.key(record))
                    received[key] = Int32(truncatingIfNeeded: try #require(record["row_checksum"]?.intValue))
                }
                guard page["has_more"] == true else {
                    last = page
                    break
                }
                #expect(page["final_scope_cursor"] == nil, "intermediate pages do not finalize the scope cursor")
                #expect(page["checksum"] == nil)
                let next = try #require(page["cursor"]?.stringValue)
                intermediate.append(next)
                cursor = .string(next)
            }
            #expect(intermediate.count == 2, "3 rows, 1 per page")
            #expect(received.count == 3)
            let final = try #require(last)
            #expect(final["cursor"] == .null)
            #expect(final["has_more"] == false)
            let scopeCursor = try #require(final["final_scope_cursor"]?.stringValue)
            let checksum = try #require(final["checksum"]?.stringValue)
            #expect(checksum == Self.decimalXOR(received.values), "the XOR of the rows' checksums, in decimal")

            // A page cursor is not a scope cursor: given to pull, it would only ask for a rebuild.
            let early = try await client.post("/sync/pull", Self.pullBody(schema: client.schema, scopes: [Self.scope: intermediate[0]]))
            #expect(early.json?["rebuild"] == [.string(Self.scope)])
            // After the final page the client resumes incremental sync from its cursor.
            let resumed = try #require(try await client.post("/sync/pull", Self.pullBody(schema: client.schema, scopes: [Self.scope: scopeCursor])).json)
            #expect(resumed["rebuild"] == [])
            #expect(resumed["changes"] == [])
            #expect(resumed["checksums"] == [Self.scope: .string(checksum)])
        }
    }

    // MARK: - schema/

    @Test("schema/schema-manifest-portable: GET /sync/schema without auth gives the manifest: primary_key, timestamp columns, canonical types, indexes")
    func schemaManifestPortable() async throws {
        try await withProtocolTwoEmulator { _, client in
            let response = try await client.http.send("GET", "/sync/schema", credentials: .none)
            #expect(response.status == 200, "\(response.text)")
            let json = try #require(response.json)
            #expect(json["schema_version"]?.intValue ?? 0 >= 1)
            let hash = try #require(json["schema_hash"]?.stringValue)
            #expect(hash.count == 32 && hash.allSatisfy { $0.isHexDigit && !$0.isUppercase })
            let tables = try #require(json["manifest"]?["tables"]?.arrayValue)
            #expect(tables.map { $0["name"] } == ["comments", "tasks"], "by name")
            let canonical: Set<String> = ["string", "int", "int64", "float", "boolean", "datetime", "date", "time", "json", "bytes"]
            for table in tables {
                #expect(table["primary_key"] == ["id"])
                #expect(table["updated_at_column"] == "updated_at")
                #expect(table["deleted_at_column"] == "deleted_at")
                // Divergence: the fixture has composition; the real server never emits it.
                #expect(table["composition"] == nil)
                // The tasks spec declares no secondary index; the field is always there.
                #expect(table["indexes"]?.arrayValue != nil)
                let columns = try #require(table["columns"]?.arrayValue)
                #expect(!columns.isEmpty)
                for column in columns {
                    #expect(column.objectValue?.keys.sorted() == ["name", "nullable", "type"])
                    #expect(canonical.contains(column["type"]?.stringValue ?? ""), "\(column)")
                }
            }
            let tasks = try #require(tables.last?["columns"]?.arrayValue)
            func column(_ name: String) -> JSONValue? { tasks.first { $0["name"] == .string(name) } }
            #expect(column("id") == ["name": "id", "type": "string", "nullable": false], "a uuid is a string")
            #expect(column("updated_at") == ["name": "updated_at", "type": "datetime", "nullable": false])
            #expect(column("deleted_at") == ["name": "deleted_at", "type": "datetime", "nullable": true])
            #expect(column("done")?["type"] == "boolean")
            #expect(column("priority")?["type"] == "int")
        }
    }

    @Test("schema/additive-column-rebuild-local: an added nullable column → connect with the old schema gets replace with the column; version and hash move together")
    func additiveColumnRebuildLocal() async throws {
        let directory = SyncFixture.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let original = try String(contentsOf: SyncFixture.tasksSpec, encoding: .utf8)
        let spec = try SyncFixture.writeSpec(original, in: directory, name: "tasks.yaml")
        let data = directory.appendingPathComponent("server")
        let sameServer: (inout SelfDBEmulator.Configuration) -> Void = { configuration in
            configuration.dataDirectory = data
            configuration.syncSpecs = [spec]
        }
        let (old, cursor) = try await withProtocolTwoEmulator(configure: sameServer) { _, fresh in
            var client = fresh
            try await client.connect()
            _ = try await client.pushOne(Mutation2.task(UUID().uuidString, user: Self.user, title: "before the change"))
            try await client.sync()
            return (client.schema, try #require(client.cursors[Self.scope] ?? nil))
        }

        let added = original.replacingOccurrences(of: "      notes: text\n", with: "      notes: text\n      estimate: integer\n")
        try #require(added != original)
        _ = try SyncFixture.writeSpec(added, in: directory, name: "tasks.yaml")
        try await withProtocolTwoEmulator(configure: sameServer) { _, fresh in
            var client = fresh
            client.cursors = [Self.scope: .some(cursor)]
            #expect(client.schema["version"]?.intValue == (old["version"]?.intValue ?? 0) + 1, "a new hash gets the next version")
            #expect(client.schema["hash"] != old["hash"])

            let response = try await client.connect(schema: old)
            #expect(response.status == 200, "\(response.text)")
            let json = try #require(response.json)
            // Divergence: the fixture says rebuild_local; the 0.3.0 server answers replace.
            #expect(json["schema"] == ["version": client.schema["version"] ?? 0, "hash": client.schema["hash"] ?? "", "action": "replace"])
            let tasks = try #require(json["schema_definition"]?["tables"]?.arrayValue?.first { $0["name"] == "tasks" })
            #expect(tasks["columns"]?.arrayValue?.contains(["name": "estimate", "type": "int", "nullable": true]) == true)
            #expect(json["scopes"] == ["add": [], "remove": []], "the scope held is kept: no scope is reassigned")

            // Pull and push stay refused under the old schema until the client applies the new one.
            #expect(try await client.pullPage(schema: old).status == 422)
            let current = try await client.pullPage()
            #expect(current.status == 200, "\(current.text)")
            #expect(current.json?["has_more"] == false)
        }
    }

    // MARK: - performance/

    /// The client's side of the budgets is `ConformanceClientTests.budgets` and
    /// `ProtocolTwoClientTests.requestBudgets`; here, that the server's answers allow them.
    @Test("performance/budgets: the server answers a warm connect in one request, a steady cycle in one pull, push+pull in two")
    func budgets() async throws {
        try await withProtocolTwoEmulator { emulator, fresh in
            var client = fresh
            try await client.connect()
            _ = try await client.pushOne(Mutation2.task(UUID().uuidString, user: Self.user, title: "one"))
            try await client.sync()
            func requests() -> [String] { emulator.recordedRequests().map(\.path).filter { $0.hasPrefix("/sync/") } }

            // Warm connect: action none needs no schema fetch, nothing to add means no rebuild.
            emulator.resetRecordedRequests()
            let warm = try #require(try await client.connect().json)
            #expect(warm["schema"]?["action"] == "none")
            #expect(warm["scopes"] == ["add": [], "remove": []])
            #expect(requests() == ["/sync/connect"])

            // Pull only: one page that is final and carries the checksums.
            emulator.resetRecordedRequests()
            let quiet = try #require(try await client.pullPage().json)
            #expect(quiet["has_more"] == false && quiet["checksums"] != nil && quiet["rebuild"] == [])
            #expect(requests() == ["/sync/pull"])

            // Push + pull: the push, then one final page that brings the change back.
            emulator.resetRecordedRequests()
            #expect(try await client.pushOne(Mutation2.task(UUID().uuidString, user: Self.user, title: "two"))["status"] == "applied")
            let page = try #require(try await client.pullPage().json)
            #expect(page["changes"]?.arrayValue?.count == 1)
            #expect(page["has_more"] == false && page["checksums"] != nil)
            #expect(requests() == ["/sync/push", "/sync/pull"])
        }
    }
}

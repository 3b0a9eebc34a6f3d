import Foundation
import Testing

@testable import EmulatorSupport
@testable import SelfDBEmulator
@testable import SynchroEmulator

/// The scope keys of the spec on the emulator's protocol-2 server, spoken to over loopback:
/// shared scopes, scope queries that put a record in several users' scopes, and column
/// selection (`shared/contracts/synchro-v2.md` §3.1, §3.5, §3.6, §3.8, §4.1–§4.3).
@Suite("Synchro protocol 2: scope keys on the emulator's server")
struct ProtocolTwoScopeTests {
    static let userA = ProtocolTwoServerTests.userA
    static let userB = ProtocolTwoServerTests.userB
    static let scopeA = "user:" + userA
    static let scopeB = "user:" + userB

    /// Read-only regions in `global`, writable announcements in `news`, documents in the scope
    /// of each member (a query), with a column that does not sync.
    static let scopedSpec = """
        spec: 1
        tables:
          Region:
            table: regions
            sync: { shared: global }
            columns:
              id: { type: uuid, primaryKey: true }
              name: text
              updated_at: { type: timestamp, nullable: false }
              deleted_at: timestamp
          Announcement:
            table: announcements
            sync: { shared: news, push: enabled }
            columns:
              id: { type: uuid, primaryKey: true }
              body: text
              updated_at: { type: timestamp, nullable: false }
              deleted_at: timestamp
          Document:
            table: documents
            sync:
              sql: |
                SELECT 'user:' || user_id FROM document_members WHERE document_id = $1 AND deleted_at IS NULL
              exclude: [internal_notes]
            columns:
              id: { type: uuid, primaryKey: true }
              title: text
              internal_notes: text
              updated_at: { type: timestamp, nullable: false }
              deleted_at: timestamp
          DocumentMember:
            table: document_members
            # A user shares a document by adding another user's membership: every user may write.
            sync: { owner: user_id, push: enabled }
            columns:
              id: { type: uuid, primaryKey: true }
              document_id: { type: uuid, nullable: false }
              user_id: { type: uuid, nullable: false }
              updated_at: { type: timestamp, nullable: false }
              deleted_at: timestamp
        """

    /// An emulator serving the tasks spec and ``scopedSpec``, with a client of user A and one
    /// of user B.
    static func withScopedEmulator(_ body: (SelfDBEmulator, ProtocolTwoClient, ProtocolTwoClient) async throws -> Void) async throws {
        let directory = SyncFixture.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let spec = try SyncFixture.writeSpec(scopedSpec, in: directory)
        try await withProtocolTwoEmulator(configure: { $0.syncSpecs.append(spec) }) { emulator, first in
            let second = try await ProtocolTwoClient(try first.http.asUser(userB, emulator: emulator))
            try await body(emulator, first, second)
        }
    }

    static func uuid() -> String { UUID().uuidString.lowercased() }

    static func member(_ id: String, document: String, user: String) -> JSONValue {
        Mutation2.make("insert", "document_members", id, columns: .object(JSONObject([("document_id", .string(document)), ("user_id", .string(user))])))
    }

    /// The XOR of the checksums held for `scope`, as a client checks a final page.
    static func xor(_ client: ProtocolTwoClient, _ scope: String) -> String {
        String((client.held[scope] ?? [:]).values.reduce(Int32(0), ^))
    }

    @Test("every client gets every shared scope, sorted after its own; shared rows reach two users")
    func sharedScopesReachEveryone() async throws {
        try await Self.withScopedEmulator { emulator, firstA, firstB in
            var userA = firstA
            var userB = firstB
            let connected = try #require(try await userA.connect().json)
            #expect(connected["scope_set_version"] == 1)
            #expect(connected["scopes"]?["add"]?.arrayValue?.map { $0["id"] } == [.string(Self.scopeA), "global", "news"])
            #expect(try await userB.connect().json?["scopes"]?["add"]?.arrayValue?.map { $0["id"] } == [.string(Self.scopeB), "global", "news"])

            let region = Self.uuid()
            try emulator.writeSyncedRow(table: "regions", values: ["id": .string(region), "name": .string("North")])
            let announcement = Self.uuid()
            #expect(try await userA.pushOne(Mutation2.make("insert", "announcements", announcement, columns: ["body": "hello"]))["status"] == "applied")
            try await userA.sync()
            try await userB.sync()
            for client in [userA, userB] {
                #expect(client.held["global"]?.keys.sorted() == ["regions|\(region)"])
                #expect(client.held["news"]?.keys.sorted() == ["announcements|\(announcement)"])
            }
            #expect(userA.held["global"] == userB.held["global"], "one row, one checksum, whoever holds it")
            let page = try #require(try await userB.pullPage().json)
            #expect(page["checksums"]?["global"]?.stringValue == Self.xor(userB, "global"))
            #expect(page["checksums"]?["news"]?.stringValue == Self.xor(userB, "news"))

            // An edit of the shared row by the operator reaches both users.
            try emulator.writeSyncedRow(table: "regions", values: ["id": .string(region), "name": .string("North-East")])
            for var client in [userA, userB] {
                let changes = try await client.sync()
                #expect(changes.map { $0["row"]?["name"] } == ["North-East"])
            }
        }
    }

    @Test("a shared table without push: enabled is read-only: policy_rejected, as for read_only on the real server")
    func readOnlySharedTable() async throws {
        try await Self.withScopedEmulator { emulator, first, _ in
            var client = first
            try await client.connect()
            let region = Self.uuid()
            try emulator.writeSyncedRow(table: "regions", values: ["id": .string(region), "name": .string("North")])
            for mutation in [
                Mutation2.make("insert", "regions", Self.uuid(), columns: ["name": "South"]),
                Mutation2.make("update", "regions", region, columns: ["name": "Mine"]),
                Mutation2.make("delete", "regions", region),
            ] {
                let entry = try await client.pushOne(mutation)
                #expect(entry["status"] == "rejected_terminal")
                #expect(entry["code"] == "policy_rejected")
                #expect(entry["message"] == "table \"regions\" is read-only")
            }
            #expect(try emulator.syncedRow(table: "regions", id: region)?.values["name"] == .string("North"))

            let tables = try #require(try await client.http.send("GET", "/sync/tables", credentials: .none).json?["tables"]?.arrayValue)
            let policies = Dictionary(uniqueKeysWithValues: tables.compactMap { table in table["table_name"]?.stringValue.map { ($0, table["push_policy"]) } })
            #expect(policies["regions"] == "read_only")
            #expect(policies["announcements"] == "enabled")
            #expect(policies["documents"] == "enabled")
            #expect(policies["tasks"] == "enabled")
        }
    }

    @Test("a record a query puts in two users' scopes reaches each, and is in each scope's checksum")
    func recordInSeveralScopes() async throws {
        try await Self.withScopedEmulator { emulator, firstA, firstB in
            var userA = firstA
            var userB = firstB
            try await userA.connect()
            try await userB.connect()
            let document = Self.uuid()
            let (memberA, memberB) = (Self.uuid(), Self.uuid())
            // The members first: a record's scopes are computed when the record is written.
            #expect(try await userA.pushOne(Self.member(memberA, document: document, user: Self.userA))["status"] == "applied")
            #expect(try await userA.pushOne(Self.member(memberB, document: document, user: Self.userB))["status"] == "applied")
            #expect(try await userA.pushOne(Mutation2.make("insert", "documents", document, columns: ["title": "Plan"]))["status"] == "applied")

            try await userA.sync()
            try await userB.sync()
            #expect(userA.held[Self.scopeA]?.keys.sorted() == ["document_members|\(memberA)", "documents|\(document)"])
            #expect(userB.held[Self.scopeB]?.keys.sorted() == ["document_members|\(memberB)", "documents|\(document)"])
            let checksum = try #require(userA.held[Self.scopeA]?["documents|\(document)"])
            #expect(userB.held[Self.scopeB]?["documents|\(document)"] == checksum)
            let memberChecksum = try #require(userB.held[Self.scopeB]?["document_members|\(memberB)"])
            let page = try #require(try await userB.pullPage().json)
            #expect(page["checksums"]?[Self.scopeB]?.stringValue == String(checksum ^ memberChecksum))

            // A fresh device of user B rebuilds its scope with the document in it.
            var tablet = userB.device("tablet")
            try await tablet.connect()
            let rebuilt = try await tablet.rebuild(Self.scopeB)
            #expect(rebuilt.records == 2)
            #expect(tablet.held[Self.scopeB]?["documents|\(document)"] == checksum)
            #expect(try emulator.syncedRow(table: "documents", id: document)?.values["title"] == .string("Plan"))
        }
    }

    @Test("a member removed: the record leaves that user's scope, as a delete without a row, when it next changes")
    func memberRemoved() async throws {
        try await Self.withScopedEmulator { _, firstA, firstB in
            var userA = firstA
            var userB = firstB
            try await userA.connect()
            try await userB.connect()
            let document = Self.uuid()
            let (memberA, memberB) = (Self.uuid(), Self.uuid())
            _ = try await userA.pushOne(Self.member(memberA, document: document, user: Self.userA))
            _ = try await userA.pushOne(Self.member(memberB, document: document, user: Self.userB))
            _ = try await userA.pushOne(Mutation2.make("insert", "documents", document, columns: ["title": "Plan"]))
            try await userA.sync()
            try await userB.sync()
            #expect(userB.held[Self.scopeB]?["documents|\(document)"] != nil)

            // Removing B's membership moves the membership row, not yet the document: the
            // real server computes a record's scopes again only when the record changes.
            #expect(try await userA.pushOne(Mutation2.make("delete", "document_members", memberB))["status"] == "applied")
            let removal = try await userB.sync()
            #expect(removal.map { $0["table"] } == ["document_members"])
            #expect(userB.held[Self.scopeB]?.keys.sorted() == ["documents|\(document)"])

            #expect(try await userA.pushOne(Mutation2.make("update", "documents", document, columns: ["title": "Plan v2"]))["status"] == "applied")
            let left = try await userB.sync()
            #expect(left.count == 1)
            #expect(left.first?["scope"] == .string(Self.scopeB))
            #expect(left.first?["op"] == "delete")
            #expect(left.first?["row"] == nil, "membership loss carries no row")
            #expect(userB.held[Self.scopeB]?.isEmpty == true)
            #expect(try #require(try await userB.pullPage().json)["checksums"]?[Self.scopeB] == "0")

            let kept = try await userA.sync()
            #expect(kept.map { $0["row"]?["title"] } == ["Plan v2"])
        }
    }

    @Test("an excluded column is not in the manifest, the tables list, pulled rows or checksums, and a pushed value is ignored")
    func excludedColumn() async throws {
        try await Self.withScopedEmulator { emulator, first, _ in
            var client = first
            try await client.connect()
            let schema = try #require(try await client.http.send("GET", "/sync/schema", credentials: .none).json)
            let manifest = try #require(schema["manifest"]?["tables"]?.arrayValue?.first { $0["name"] == "documents" })
            #expect(manifest["columns"]?.arrayValue?.map { $0["name"] } == ["id", "title", "updated_at", "deleted_at"])
            let tables = try #require(try await client.http.send("GET", "/sync/tables", credentials: .none).json?["tables"]?.arrayValue)
            let documents = try #require(tables.first { $0["table_name"] == "documents" })
            #expect(documents["sync_columns"] == ["id", "title", "updated_at", "deleted_at"])
            #expect(documents["exclude_columns"] == ["internal_notes"])
            #expect(tables.first { $0["table_name"] == "tasks" }?["exclude_columns"] == [])

            let document = Self.uuid()
            _ = try await client.pushOne(Self.member(Self.uuid(), document: document, user: Self.userA))
            let pushed = try await client.pushOne(
                Mutation2.make("insert", "documents", document, columns: ["title": "Plan", "internal_notes": "secret"])
            )
            #expect(pushed["status"] == "applied")
            #expect(pushed["server_row"]?["internal_notes"] == nil)
            #expect(try emulator.syncedRow(table: "documents", id: document)?.values["internal_notes"] == .null, "ignored when pushed")
            try await client.sync()

            // The operator sets it; clients still never see it, and the checksum is the synced row's.
            try emulator.writeSyncedRow(table: "documents", values: ["id": .string(document), "internal_notes": .string("server only")])
            let changes = try await client.sync()
            let row = try #require(changes.last { $0["table"] == "documents" }?["row"])
            #expect(row.objectValue?.members.map(\.key).sorted() == ["deleted_at", "id", "title", "updated_at"])
            #expect(changes.last { $0["table"] == "documents" }?["row_checksum"] == .int(Int64(RowChecksum.of(row))))
            #expect(try emulator.syncedRow(table: "documents", id: document)?.values["internal_notes"] == .string("server only"))
            let page = try #require(try await client.pullPage().json)
            #expect(page["checksums"]?[Self.scopeA]?.stringValue == Self.xor(client, Self.scopeA))
        }
    }

    @Test("a scope query that does not run fails the start, located at its sql: in the spec file")
    func brokenQueriesFailTheStart() async throws {
        let directory = SyncFixture.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        func table(_ name: String, _ sql: String) -> String {
            """
              T\(name):
                table: \(name)
                sync: { sql: "\(sql)" }
                columns:
                  id: { type: uuid, primaryKey: true }
                  user_id: uuid
                  updated_at: { type: timestamp, nullable: false }
                  deleted_at: timestamp

            """
        }
        let spec = try SyncFixture.writeSpec(
            "tables:\n"
                + table("misspelt", "SELECT 'user:' || user_idd FROM misspelt WHERE id = $1")
                + table("casted", "SELECT 'user:' || user_id FROM casted WHERE id = $1::uuid")
                + table("arrays", "SELECT ARRAY['user:' || user_id] FROM arrays WHERE id = $1")
                + table("writes", "DELETE FROM writes WHERE id = $1")
                + table("pairs", "SELECT 'user:' || user_id, id FROM pairs WHERE id = $1")
                + table("fine", "SELECT 'user:' || m.user_id FROM misspelt m JOIN fine f ON f.user_id = m.user_id WHERE f.id = $1"),
            in: directory
        )
        do {
            let emulator = try await SelfDBEmulator.start(.init(apiKey: Fixture.apiKey, syncSpecs: [spec]))
            await emulator.stop()
            Issue.record("broken scope queries must not start")
        } catch SelfDBEmulator.StartError.syncSpecInvalid(let diagnostics) {
            #expect(diagnostics.allSatisfy { $0.location.file == spec.path && $0.severity == .error })
            let lines = diagnostics.map { "\($0.location.line):\($0.location.column): \($0.message)" }
            #expect(
                lines == [
                    "4:18: the scope query of 'misspelt' does not compile in the emulator's SQLite: no such column: user_idd",
                    "12:18: the scope query of 'casted' has a parameter other than $1; $1 is the record's key and the only one (PostgreSQL casts go: write $1, not $1::uuid)",
                    "20:18: the scope query of 'arrays' does not compile in the emulator's SQLite: no such column: ARRAY (return one scope id per row: ARRAY['user:' || user_id] becomes 'user:' || user_id, array_agg(x) becomes x)",
                    "28:18: the scope query of 'writes' changes the database; it must only read (a SELECT)",
                    "36:18: the scope query of 'pairs' returns 2 columns; it must return one, a scope id per row",
                ]
            )
        }
    }

    @Test("protocol 1 refuses the keys only protocol 2 serves, rather than serving them wrong")
    func protocolOneRefuses() async throws {
        let directory = SyncFixture.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let spec = try SyncFixture.writeSpec(Self.scopedSpec, in: directory)
        do {
            let emulator = try await SelfDBEmulator.start(.init(apiKey: Fixture.apiKey, syncSpecs: [spec], syncProtocol: .one))
            await emulator.stop()
            Issue.record("protocol 1 must not serve shared scopes")
        } catch SelfDBEmulator.StartError.syncConfigurationInvalid(let reason) {
            #expect(reason.contains("'regions' uses 'shared', which needs protocol 2"), "\(reason)")
        }
    }

    @Test("a shared scope added to the spec reaches registered clients: scope_set_version as §4.2 and §9.8 say")
    func sharedScopeAddedAtRestart() async throws {
        let directory = SyncFixture.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let news = try SyncFixture.writeSpec(
            """
            tables:
              Announcement:
                table: announcements
                sync: { shared: news, push: enabled }
                columns:
                  id: { type: uuid, primaryKey: true }
                  body: text
                  updated_at: { type: timestamp, nullable: false }
                  deleted_at: timestamp
            """,
            in: directory,
            name: "news.yaml"
        )
        let regions = try SyncFixture.writeSpec(
            """
            tables:
              Region:
                table: regions
                sync: { shared: global }
                columns:
                  id: { type: uuid, primaryKey: true }
                  updated_at: { type: timestamp, nullable: false }
                  deleted_at: timestamp
            """,
            in: directory,
            name: "regions.yaml"
        )
        let data = directory.appendingPathComponent("data", isDirectory: true)
        func start(_ specs: [URL]) async throws -> SelfDBEmulator {
            try await SelfDBEmulator.start(.init(dataDirectory: data, apiKey: Fixture.apiKey, passwordHashIterations: 1_000, syncSpecs: specs))
        }

        let before = try await start([SyncFixture.tasksSpec, news])
        var client = try await ProtocolTwoClient(try SyncTestClient(emulator: before, user: Self.userA))
        let first = try await client.connect()
        await before.stop()
        #expect(first.json?["scope_set_version"] == 1)
        #expect(client.cursors.keys.sorted() == [Self.scopeA, "news"].sorted())

        let after = try await start([SyncFixture.tasksSpec, news, regions])
        do {
            var restarted = try await ProtocolTwoClient(try SyncTestClient(emulator: after, user: Self.userA))
            restarted.cursors = client.cursors
            // Registering appends the scope to the stored list and raises the version.
            let page = try #require(try await restarted.pullPage().json)
            #expect(page["scope_set_version"] == 2)
            #expect(page["scope_updates"] == ["add": [["id": "global", "cursor": .null]], "remove": []])
            // Connect sorts the list again, which is a change of its own.
            let connected = try #require(try await restarted.connect().json)
            #expect(connected["scope_set_version"] == 3)
            #expect(connected["scopes"] == ["add": [["id": "global", "cursor": .null]], "remove": []])
            #expect(try await restarted.connect().json?["scope_set_version"] == 3)
            await after.stop()
        } catch {
            await after.stop()
            throw error
        }
    }
}

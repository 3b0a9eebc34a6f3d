import Foundation
import Testing

@testable import EmulatorSupport
@testable import SelfDBEmulator
@testable import SynchroEmulator

@Suite("Synchro server: schema")
struct SynchroSchemaTests {
    @Test func schemaListsTablesSortedWithTypedColumns() async throws {
        try await withSyncEmulator { emulator, client in
            let response = try await client.send("GET", "/sync/schema")
            #expect(response.status == 200)
            let body = try #require(response.json)
            #expect(body["schema_version"] == .int(client.schemaVersion))
            #expect(body["schema_hash"] == .string(client.schemaHash))
            #expect(body["server_time"]?.stringValue.flatMap(SyncTimestamp.init(parsing:)) != nil)
            let tables = try #require(body["tables"]?.arrayValue)
            #expect(tables.compactMap { $0["table_name"]?.stringValue } == ["comments", "tasks"])

            let comments = tables[0]
            #expect(comments["push_policy"] == "owner_only")
            #expect(comments["parent_table"] == "tasks")
            #expect(comments["parent_fk_col"] == "task_id")
            #expect(comments["dependencies"] == ["tasks"])
            #expect(comments["updated_at_column"] == "updated_at")
            #expect(comments["deleted_at_column"] == "deleted_at")
            #expect(comments["primary_key"] == ["id"])

            let tasks = tables[1]
            #expect(tasks["parent_table"] == nil)
            #expect(tasks["dependencies"] == [])
            let columns = try #require(tasks["columns"]?.arrayValue)
            func column(_ name: String) -> JSONValue? { columns.first { $0["name"] == .string(name) } }
            #expect(columns.compactMap { $0["name"]?.stringValue } == ["id", "user_id", "title", "done", "priority", "notes", "created_at", "updated_at", "deleted_at"])
            #expect(column("id")?["db_type"] == "uuid")
            #expect(column("id")?["logical_type"] == "string")
            #expect(column("id")?["is_primary_key"] == true)
            #expect(column("id")?["nullable"] == false)
            #expect(column("done")?["logical_type"] == "boolean")
            #expect(column("done")?["default_kind"] == "portable")
            #expect(column("done")?["default_sql"] == "false")
            #expect(column("done")?["sqlite_default_sql"] == "0")
            #expect(column("priority")?["logical_type"] == "int")
            #expect(column("priority")?["sqlite_default_sql"] == "0")
            #expect(column("notes")?["default_kind"] == "none")
            #expect(column("notes")?["nullable"] == true)
            #expect(column("created_at")?["logical_type"] == "datetime")
            #expect(column("updated_at")?["default_kind"] == "server_only")
            #expect(column("updated_at")?["default_sql"] == "now()")
            #expect(column("updated_at")?["sqlite_default_sql"] == nil)
            #expect(column("title")?["is_primary_key"] == false)

            // The hash is SHA-256 of the canonical {"tables":[...]}: sorted keys, no spaces.
            let canonical = CanonicalJSON.bytes(["tables": .array(tables)])
            #expect(CanonicalJSON.sha256Hex(["tables": .array(tables)]) == client.schemaHash)
            #expect(
                String(decoding: canonical, as: UTF8.self).hasPrefix(
                    #"{"tables":[{"columns":[{"db_type":"uuid","default_kind":"none","is_primary_key":true,"logical_type":"string","name":"id","nullable":false}"#
                )
            )
            _ = emulator
        }
    }

    @Test func tablesEndpointListsMetadataOnly() async throws {
        try await withSyncEmulator { _, client in
            let response = try await client.send("GET", "/sync/tables")
            #expect(response.status == 200)
            let tables = try #require(response.json?["tables"]?.arrayValue)
            #expect(tables.compactMap { $0["table_name"]?.stringValue } == ["comments", "tasks"])
            #expect(tables[0]["columns"] == nil)
            #expect(tables[0]["parent_table"] == "tasks")
            #expect(tables[1]["push_policy"] == "owner_only")
            #expect(response.json?["schema_hash"] == .string(client.schemaHash))
            #expect(response.json?["schema_version"] == .int(client.schemaVersion))
        }
    }

    @Test func logicalTypesCoverEveryColumnType() async throws {
        let expected: [(String, String)] = [
            ("text", "string"), ("varchar", "string"), ("string", "string"), ("uuid", "string"),
            ("integer", "int"), ("int", "int"), ("bigint", "int64"), ("decimal", "float"), ("float", "float"),
            ("boolean", "boolean"), ("bool", "boolean"), ("date", "date"), ("timestamp", "datetime"),
            ("datetime", "datetime"), ("json", "json"), ("jsonb", "json"),
        ]
        let directory = SyncFixture.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let columns = expected.map { "      c_\($0.0): \($0.0)" }.joined(separator: "\n")
        let spec = try SyncFixture.writeSpec(
            "tables:\n  Everything:\n    table: everything\n    sync: { owner: c_text }\n    columns:\n"
                + "      id: { type: text, primaryKey: true }\n" + columns + "\n      updated_at: timestamp\n      deleted_at: timestamp\n",
            in: directory
        )
        try await withSyncEmulator(configure: { $0.syncSpecs = [spec] }) { _, client in
            let response = try await client.send("GET", "/sync/schema")
            let columns = try #require(response.json?["tables"]?.arrayValue?.first?["columns"]?.arrayValue)
            for (type, logical) in expected {
                let column = columns.first { $0["name"] == .string("c_\(type)") }
                #expect(column?["logical_type"] == .string(logical), "\(type)")
                #expect(column?["db_type"] == .string(type), "\(type)")
            }
        }
    }

    @Test func hashIsStableAndVersionGrowsOnlyWhenTheSpecChanges() async throws {
        let directory = SyncFixture.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let dataDirectory = directory.appendingPathComponent("data")
        let specText = try String(contentsOf: SyncFixture.tasksSpec, encoding: .utf8)
        let spec = try SyncFixture.writeSpec(specText, in: directory, name: "tasks.yaml")
        let configuration = SelfDBEmulator.Configuration(
            dataDirectory: dataDirectory,
            apiKey: Fixture.apiKey,
            passwordHashIterations: 1_000,
            syncSpecs: [spec],
            syncProtocol: .one
        )

        let first = try await SelfDBEmulator.start(configuration)
        let original = try #require(first.syncSchema)
        #expect(original.version == 1)
        let client = try SyncTestClient(emulator: first, user: "keeper")
        try await client.register()
        _ = try await client.pushOne(Change.create("tasks", UUID().uuidString, Change.task("kept")))
        await first.stop()

        let second = try await SelfDBEmulator.start(configuration)
        #expect(second.syncSchema == original, "same spec: same version and hash")
        await second.stop()

        // A new column changes the hash: the version grows and old clients get 409.
        try Data(specText.replacingOccurrences(of: "      notes: text\n", with: "      notes: text\n      color: text\n").utf8).write(to: spec)
        let third = try await SelfDBEmulator.start(configuration)
        let changed = try #require(third.syncSchema)
        #expect(changed.version == 2)
        #expect(changed.hash != original.hash)
        let stale = SyncTestClient(copying: client, baseURL: third.baseURL, token: third.syncAccessToken(forUser: "keeper"))
        let refused = try await stale.pull(checkpoint: 0)
        #expect(refused.status == 409)
        #expect(refused.json?["code"] == "schema_mismatch")
        #expect(refused.json?["server_schema_version"] == .int(2))
        #expect(refused.json?["server_schema_hash"] == .string(changed.hash))
        // Data and registration survived; the new column reads as null.
        var current = stale
        current.schemaVersion = changed.version
        current.schemaHash = changed.hash
        let snapshot = try await current.fullSnapshot(limit: 10)
        #expect(snapshot.records.count == 1)
        #expect(snapshot.records.first?["data"]?["color"] == .null)
        #expect(snapshot.records.first?["data"]?["title"] == "kept")
        await third.stop()

        // Going back to the first shape is a new version too: versions only grow.
        try Data(specText.utf8).write(to: spec)
        let fourth = try await SelfDBEmulator.start(configuration)
        #expect(fourth.syncSchema?.version == 3)
        #expect(fourth.syncSchema?.hash == original.hash)
        await fourth.stop()
    }

    @Test func brokenSyncSpecFailsTheStartWithLocatedDiagnostics() async throws {
        let directory = SyncFixture.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let spec = try SyncFixture.writeSpec(
            """
            tables:
              Note:
                table: notes
                sync: { ownr: author }
                columns:
                  id: { type: uuid, primaryKey: true }
                  author: uuid
                  updated_at: timestamp
                  deleted_at: timestamp
            """,
            in: directory
        )
        do {
            _ = try await SelfDBEmulator.start(.init(apiKey: Fixture.apiKey, syncSpecs: [spec]))
            Issue.record("a broken sync spec must not start")
        } catch SelfDBEmulator.StartError.syncSpecInvalid(let diagnostics) {
            let lines = diagnostics.map { "\($0.location.line):\($0.location.column): \($0.message)" }
            #expect(lines.contains("4:13: unknown key 'ownr' in 'sync' of 'Note'; did you mean 'owner'?"))
            #expect(diagnostics.allSatisfy { $0.location.file == spec.path })
        }

        let plain = try SyncFixture.writeSpec("tables:\n  Note:\n    columns:\n      id: { type: uuid, primaryKey: true }\n", in: directory, name: "plain.yaml")
        await #expect(throws: SelfDBEmulator.StartError.self) {
            _ = try await SelfDBEmulator.start(.init(apiKey: Fixture.apiKey, syncSpecs: [plain]))
        }
        await #expect(throws: SelfDBEmulator.StartError.self) {
            _ = try await SelfDBEmulator.start(.init(apiKey: Fixture.apiKey, syncSpecs: [SyncFixture.tasksSpec], syncMinimumAppVersion: "one"))
        }
    }

    @Test func withoutSyncSpecsTheSyncPathsAreSelfDBs() async throws {
        try await withEmulator { emulator, client in
            #expect(emulator.syncSchema == nil)
            let schema = try await client.send("GET", "/sync/schema")
            #expect(schema.status == 404)
            let health = try await client.send("GET", "/healthz", apiKey: .missing)
            #expect(health.status == 406)
            var refused: SelfDBEmulator.SyncHookError?
            do {
                try emulator.compactSyncLog()
            } catch let error as SelfDBEmulator.SyncHookError {
                refused = error
            }
            #expect(refused == .syncDisabled)
        }
    }
}

extension SyncTestClient {
    /// This client's identity and schema against another (restarted) emulator.
    init(copying other: SyncTestClient, baseURL: URL, token: String) {
        self = other
        self.api = APIClient(baseURL: baseURL)
        self.token = token
    }
}

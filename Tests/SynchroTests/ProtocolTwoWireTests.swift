import Foundation
import SelfDBRuntime
import Synchro
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The protocol-2 wire models generated from `Spec/synchro-v2.yaml` against the examples of
/// the contract (`shared/contracts/synchro-v2.md` §2.5 and §3), decoded and encoded with the
/// coders the Synchro client's `APIClient` uses (`JSONCoding`).
@Suite("Protocol 2 wire")
struct ProtocolTwoWireTests {
    // MARK: - §3.1 connect

    @Test func theConnectRequestExampleRoundTrips() throws {
        let text = #"""
            {"client_id":"ios-7F3A","platform":"ios","app_version":"1.4.0","protocol_version":2,
             "schema":{"version":0,"hash":""},"scope_set_version":0,"known_scopes":{}}
            """#
        let request = try decode(ConnectRequest.self, text)
        #expect(request.clientId == "ios-7F3A" && request.platform == "ios" && request.appVersion == "1.4.0")
        #expect(request.protocolVersion == 2)
        #expect(request.schema == SchemaRef(version: 0, hash: ""))
        #expect(request.scopeSetVersion == 0 && request.knownScopes.isEmpty)
        #expect(try json(encoded(request)) == json(text))
    }

    @Test func aConnectRequestLeavesOutNilCursors() throws {
        let request = ConnectRequest(
            clientId: "ios-7F3A",
            platform: "ios",
            appVersion: "1.4.0",
            protocolVersion: 2,
            schema: SchemaRef(version: 3, hash: "0c9b6f1e2d4a58c7b3e1f0a9d8c7b6a5"),
            scopeSetVersion: 1,
            knownScopes: ["user:u_123": ScopeCursorRef(cursor: "v2.a1B"), "global": ScopeCursorRef(cursor: nil)]
        )
        #expect(
            try encoded(request)
                == #"{"app_version":"1.4.0","client_id":"ios-7F3A","known_scopes":{"global":{},"user:u_123":{"cursor":"v2.a1B"}},"#
                + #""platform":"ios","protocol_version":2,"schema":{"hash":"0c9b6f1e2d4a58c7b3e1f0a9d8c7b6a5","version":3},"scope_set_version":1}"#
        )
        // The server reads an omitted cursor and `null` alike; so do the models.
        #expect(try decode(ScopeCursorRef.self, "{}") == ScopeCursorRef(cursor: nil))
        #expect(try decode(ScopeCursorRef.self, #"{"cursor":null}"#) == ScopeCursorRef(cursor: nil))
    }

    @Test func theConnectResponseExampleDecodes() throws {
        // The contract elides the manifest (`[ … manifest tables, see §3.5 … ]`); §3.5's stands in.
        let text = #"""
            {"server_time":"2026-03-20T18:22:11.482913227Z","protocol_version":2,"scope_set_version":1,
             "schema":{"version":3,"hash":"0c9b6f1e2d4a58c7b3e1f0a9d8c7b6a5","action":"replace"},
             "scopes":{"add":[{"id":"user:u_123","cursor":null},{"id":"global","cursor":null}],"remove":[]},
             "schema_definition":\#(Self.manifest)}
            """#
        let response = try decode(ConnectResponse.self, text)
        let connectedAt = try date("2026-03-20T18:22:11.482Z")
        #expect(abs(response.serverTime.timeIntervalSince(connectedAt)) < 0.001)
        #expect(response.protocolVersion == 2 && response.scopeSetVersion == 1)
        #expect(response.schema.version == 3 && response.schema.hash == "0c9b6f1e2d4a58c7b3e1f0a9d8c7b6a5")
        #expect(response.schema.action == .replace)
        #expect(response.scopes.add == [ScopeAssignment(id: "user:u_123", cursor: nil), ScopeAssignment(id: "global", cursor: nil)])
        #expect(response.scopes.remove.isEmpty)
        let table = try #require(response.schemaDefinition?.tables.first)
        #expect(table.name == "notes" && table.columns?.count == 5)
    }

    @Test func aWarmConnectHasNoSchemaDefinitionAndUnknownActionsSurvive() throws {
        let warm = try decode(
            ConnectResponse.self,
            #"""
            {"server_time":"2026-03-20T18:22:11Z","protocol_version":2,"scope_set_version":1,
             "schema":{"version":3,"hash":"0c9b6f1e2d4a58c7b3e1f0a9d8c7b6a5","action":"none"},
             "scopes":{"add":[],"remove":[]}}
            """#
        )
        #expect(warm.schema.action == SchemaAction.none && warm.schemaDefinition == nil)
        #expect(warm.scopes == ScopeDelta(add: [], remove: []))
        #expect(SchemaAction.knownCases == [.none, .fetch, .replace, .rebuildLocal, .unsupported])
        #expect(SchemaAction(rawValue: "rebuild_local") == .rebuildLocal)
        let future = try decode(SchemaDescriptor.self, #"{"version":4,"hash":"ab","action":"migrate_in_place"}"#)
        #expect(future.action == .unknown("migrate_in_place"))
    }

    // MARK: - §3.2 push

    static let pushRequest = #"""
        {"client_id":"ios-7F3A","batch_id":"b1","schema":{"version":3,"hash":"0c9b…"},
         "mutations":[
          {"mutation_id":"m1","table":"notes","op":"insert","pk":{"id":"n1"},
           "client_version":"2026-03-20T18:21:54.120Z",
           "columns":{"id":"n1","user_id":"u_123","title":"Hi","updated_at":"ignored","deleted_at":null}},
          {"mutation_id":"m2","table":"notes","op":"update","pk":{"id":"n2"},
           "client_version":"2026-03-20T18:00:00.000Z","base_version":"2026-03-19T09:00:00.000Z",
           "columns":{"title":"Edited"}},
          {"mutation_id":"m3","table":"notes","op":"delete","pk":{"id":"n3"},
           "client_version":"2026-03-20T18:22:01.003Z"}]}
        """#

    @Test func thePushRequestExampleRoundTrips() throws {
        let request = try decode(MutationPushRequest.self, Self.pushRequest)
        #expect(request.clientId == "ios-7F3A" && request.batchId == "b1" && request.schema == SchemaRef(version: 3, hash: "0c9b…"))
        #expect(request.mutations.map(\.op) == [.insert, .update, .delete])
        let insert = request.mutations[0]
        #expect(insert.mutationId == "m1" && insert.table == "notes" && insert.pk == ["id": "n1"])
        #expect(insert.clientVersion == "2026-03-20T18:21:54.120Z" && insert.baseVersion == nil)
        #expect(insert.columns?["deleted_at"] == .null && insert.columns?["title"] == "Hi")
        #expect(request.mutations[1].baseVersion == "2026-03-19T09:00:00.000Z")
        #expect(request.mutations[2].columns == nil)
        // Encoded back, the same JSON: absent optionals stay absent, a null column stays null.
        #expect(try json(encoded(request)) == json(Self.pushRequest))
    }

    @Test func aMutationLeavesOutWhatItDoesNotHave() throws {
        let delete = Mutation(mutationId: "notes:n3:delete:2026-03-20T18:22:01.003Z", table: "notes", op: .delete, pk: ["id": "n3"])
        #expect(try encoded(delete) == #"{"mutation_id":"notes:n3:delete:2026-03-20T18:22:01.003Z","op":"delete","pk":{"id":"n3"},"table":"notes"}"#)
        let upsert = Mutation(
            mutationId: "m4",
            table: "notes",
            op: .upsert,
            pk: ["id": "n4"],
            clientVersion: "2026-03-20T18:22:02.000Z",
            columns: ["tags": ["a", "b"], "n": 3, "done": false, "note": nil]
        )
        #expect(
            try encoded(upsert)
                == #"{"client_version":"2026-03-20T18:22:02.000Z","columns":{"done":false,"n":3,"note":null,"tags":["a","b"]},"#
                + #""mutation_id":"m4","op":"upsert","pk":{"id":"n4"},"table":"notes"}"#
        )
    }

    @Test func thePushResponseExampleDecodes() throws {
        let text = #"""
            {"server_time":"2026-03-20T18:22:11.482913227Z",
             "accepted":[
              {"mutation_id":"m1","table":"notes","pk":{"id":"n1"},"status":"applied",
               "server_row":{"id":"n1","user_id":"u_123","title":"Hi",
                             "updated_at":"2026-03-20T18:21:54.120Z","deleted_at":null},
               "server_version":"2026-03-20T18:21:54.120Z"},
              {"mutation_id":"m3","table":"notes","pk":{"id":"n3"},"status":"applied",
               "server_row":{"id":"n3","user_id":"u_123","title":"Old",
                             "updated_at":"2026-03-01T10:00:00.000Z","deleted_at":"2026-03-20T18:22:11.481Z"},
               "server_version":"2026-03-20T18:22:11.481Z"}],
             "rejected":[
              {"mutation_id":"m2","table":"notes","pk":{"id":"n2"},"status":"conflict","code":"version_conflict",
               "message":"server version is newer",
               "server_row":{"id":"n2","user_id":"u_123","title":"Theirs",
                             "updated_at":"2026-03-20T18:10:00.000Z","deleted_at":null},
               "server_version":"2026-03-20T18:10:00.000Z"}]}
            """#
        let response = try decode(MutationPushResponse.self, text)
        let startedAt = try date("2026-03-20T18:22:11.482913Z")
        #expect(abs(response.serverTime.timeIntervalSince(startedAt)) < 0.001)
        #expect(response.accepted.map(\.mutationId) == ["m1", "m3"])
        #expect(response.accepted.allSatisfy { $0.status == .applied })
        let deleted = response.accepted[1]
        #expect(deleted.pk == ["id": "n3"] && deleted.serverVersion == "2026-03-20T18:22:11.481Z")
        #expect(deleted.serverRow?["deleted_at"] == "2026-03-20T18:22:11.481Z")
        let conflict = try #require(response.rejected.first)
        #expect(conflict.mutationId == "m2" && conflict.table == "notes" && conflict.pk == ["id": "n2"])
        #expect(conflict.status == .conflict && conflict.code == .versionConflict && conflict.message == "server version is newer")
        #expect(conflict.serverRow?["title"] == "Theirs" && conflict.serverVersion == "2026-03-20T18:10:00.000Z")

        // A terminal rejection carries neither row nor version.
        let terminal = try decode(
            RejectedMutation.self,
            #"{"mutation_id":"m5","table":"tags","pk":{"id":"t1"},"status":"rejected_terminal","code":"table_not_synced"}"#
        )
        #expect(terminal.status == .rejectedTerminal && terminal.code == .tableNotSynced)
        #expect(terminal.message == nil && terminal.serverRow == nil && terminal.serverVersion == nil)
        #expect(
            MutationRejectionCode.knownCases.map(\.rawValue) == [
                "version_conflict", "policy_rejected", "validation_failed", "table_not_synced", "server_retryable", "unknown_scope_effect",
            ]
        )
        #expect(MutationStatus(rawValue: "rejected_retryable") == .rejectedRetryable)
    }

    // MARK: - §3.3 pull

    static let pullRequest = #"""
        {"client_id":"ios-7F3A","schema":{"version":3,"hash":"0c9b…"},"scope_set_version":1,
         "scopes":{"user:u_123":{"cursor":"v2.eyJ….k3Q"},"global":{"cursor":"v2.eyJ….Zq8"}},"limit":100}
        """#

    @Test func thePullRequestExampleRoundTrips() throws {
        let request = try decode(ScopedPullRequest.self, Self.pullRequest)
        #expect(request.clientId == "ios-7F3A" && request.scopeSetVersion == 1 && request.limit == 100)
        #expect(request.scopes == ["user:u_123": ScopeCursorRef(cursor: "v2.eyJ….k3Q"), "global": ScopeCursorRef(cursor: "v2.eyJ….Zq8")])
        #expect(try json(encoded(request)) == json(Self.pullRequest))

        var rebuilding = request
        rebuilding.scopes["global"] = ScopeCursorRef(cursor: nil)
        #expect(try json(encoded(rebuilding))["scopes"] == ["user:u_123": ["cursor": "v2.eyJ….k3Q"], "global": [:]])
    }

    @Test func thePullResponseExampleDecodes() throws {
        let text = #"""
            {"changes":[
               {"scope":"user:u_123","table":"notes","op":"upsert","pk":{"id":"n9"},
                "row":{"deleted_at":null,"id":"n9","title":"Tempo","updated_at":"2026-03-20T18:20:00.000Z","user_id":"u_123"},
                "row_checksum":-156732856,"server_version":"2026-03-20T18:20:00.000Z"},
               {"scope":"global","table":"regions","op":"delete","pk":{"id":"r7"},
                "row":{"deleted_at":"2026-03-20T18:21:00.000Z","id":"r7","name":"X","updated_at":"2026-03-01T00:00:00.000Z"},
                "row_checksum":985589584,"server_version":"2026-03-20T18:21:00.000Z"}],
             "scope_set_version":1,
             "scope_cursors":{"user:u_123":"v2.eyJ….a1B","global":"v2.eyJ….c2D"},
             "scope_updates":{"add":[],"remove":[]},"rebuild":[],"has_more":false,
             "checksums":{"user:u_123":"24108408","global":"0"}}
            """#
        let response = try decode(ScopedPullResponse.self, text)
        #expect(response.changes.map(\.op) == [.upsert, .delete])
        let upsert = response.changes[0]
        #expect(upsert.scope == "user:u_123" && upsert.table == "notes" && upsert.pk == ["id": "n9"])
        #expect(upsert.row?["title"] == "Tempo" && upsert.row?["deleted_at"] == .null)
        #expect(upsert.rowChecksum.flatMap { Int32(exactly: $0) } == -156_732_856)
        #expect(upsert.serverVersion == "2026-03-20T18:20:00.000Z")
        #expect(response.changes[1].row?["deleted_at"] == "2026-03-20T18:21:00.000Z" && response.changes[1].rowChecksum == 985_589_584)
        #expect(response.scopeSetVersion == 1 && response.scopeCursors == ["user:u_123": "v2.eyJ….a1B", "global": "v2.eyJ….c2D"])
        #expect(response.scopeUpdates == ScopeDelta(add: [], remove: []) && response.rebuild.isEmpty && !response.hasMore)
        #expect(response.checksums == ["user:u_123": "24108408", "global": "0"])
        // The contract's check: the user scope's checksum is the XOR of n9's and an older row n8's.
        let n8: Int32 = -137_908_432
        #expect(try #require(upsert.rowChecksum.flatMap { Int32(exactly: $0) }) ^ n8 == Int32(try #require(response.checksums?["user:u_123"])))
    }

    @Test func aNonFinalPullPageHasNoChecksumsAndADeleteMayHaveNoRow() throws {
        let page = try decode(
            ScopedPullResponse.self,
            #"""
            {"changes":[{"scope":"user:u_123","table":"notes","op":"delete","pk":{"id":"n5"},"server_version":"418"}],
             "scope_set_version":2,"scope_cursors":{"user:u_123":"v2.x"},
             "scope_updates":{"add":[{"id":"team:7","cursor":null}],"remove":["global"]},"rebuild":["team:7"],"has_more":true}
            """#
        )
        let gone = try #require(page.changes.first)
        #expect(gone.op == .delete && gone.row == nil && gone.rowChecksum == nil && gone.serverVersion == "418")
        #expect(page.checksums == nil && page.hasMore)
        #expect(page.scopeUpdates.add == [ScopeAssignment(id: "team:7")] && page.scopeUpdates.remove == ["global"] && page.rebuild == ["team:7"])
    }

    // MARK: - §3.4 rebuild

    @Test func rebuildRequestsLeaveOutTheFirstPageCursor() throws {
        let first = RebuildRequest(clientId: "ios-7F3A", scope: "user:u_123", limit: 100)
        #expect(try encoded(first) == #"{"client_id":"ios-7F3A","limit":100,"scope":"user:u_123"}"#)
        let next = RebuildRequest(clientId: "ios-7F3A", scope: "user:u_123", cursor: "notes|n8", limit: 100)
        #expect(try encoded(next) == #"{"client_id":"ios-7F3A","cursor":"notes|n8","limit":100,"scope":"user:u_123"}"#)
        // The server takes `"cursor": null` as well.
        #expect(try decode(RebuildRequest.self, #"{"client_id":"c","scope":"global","cursor":null,"limit":0}"#).cursor == nil)
    }

    @Test func rebuildPagesDecode() throws {
        // Written from §3.4: a non-final page (a string cursor, no final cursor, no checksum),
        // an empty page that still has more, and the final page (`cursor` null, present).
        let first = try decode(
            RebuildResponse.self,
            #"""
            {"scope":"user:u_123","records":[
               {"table":"notes","pk":{"id":"n8"},
                "row":{"deleted_at":null,"id":"n8","title":"Old","updated_at":"2026-03-02T08:00:00.000Z","user_id":"u_123"},
                "row_checksum":-137908432,"server_version":"2026-03-02T08:00:00.000Z"}],
             "cursor":"notes|n8","has_more":true}
            """#
        )
        #expect(first.scope == "user:u_123" && first.cursor == "notes|n8" && first.hasMore)
        #expect(first.finalScopeCursor == nil && first.checksum == nil)
        let n8 = try #require(first.records.first)
        #expect(n8.table == "notes" && n8.pk == ["id": "n8"] && n8.row?["title"] == "Old" && n8.serverVersion == "2026-03-02T08:00:00.000Z")

        let empty = try decode(RebuildResponse.self, #"{"scope":"user:u_123","records":[],"cursor":"notes|n8.5","has_more":true}"#)
        #expect(empty.records.isEmpty && empty.hasMore)

        let last = try decode(
            RebuildResponse.self,
            #"""
            {"scope":"user:u_123","records":[
               {"table":"notes","pk":{"id":"n9"},
                "row":{"deleted_at":null,"id":"n9","title":"Tempo","updated_at":"2026-03-20T18:20:00.000Z","user_id":"u_123"},
                "row_checksum":-156732856,"server_version":"2026-03-20T18:20:00.000Z"}],
             "cursor":null,"has_more":false,"final_scope_cursor":"v2.eyJ….f4E","checksum":"24108408"}
            """#
        )
        #expect(last.cursor == nil && !last.hasMore && last.finalScopeCursor == "v2.eyJ….f4E" && last.checksum == "24108408")
        // The client installs the final cursor only when its XOR of the received checksums matches.
        let local = (first.records + last.records).compactMap { $0.rowChecksum.flatMap { Int32(exactly: $0) } }.reduce(0, ^)
        #expect(local == Int32(try #require(last.checksum)))
    }

    // MARK: - §3.5 schema, §3.6 tables

    static let manifest = #"""
        {"tables":[
           {"name":"notes","primary_key":["id"],"updated_at_column":"updated_at","deleted_at_column":"deleted_at",
            "columns":[{"name":"id","type":"string","nullable":false},
                       {"name":"user_id","type":"string","nullable":false},
                       {"name":"title","type":"string","nullable":true},
                       {"name":"updated_at","type":"datetime","nullable":false},
                       {"name":"deleted_at","type":"datetime","nullable":true}],
            "indexes":[{"name":"idx_notes_user","columns":["user_id"]}]}]}
        """#

    @Test func theSchemaExampleDecodes() throws {
        let text = #"""
            {"schema_version":3,"schema_hash":"0c9b6f1e2d4a58c7b3e1f0a9d8c7b6a5","server_time":"2026-03-20T18:22:11.482Z",
             "manifest":\#(Self.manifest)}
            """#
        let response = try decode(ManifestSchemaResponse.self, text)
        #expect(response.schemaVersion == 3 && response.schemaHash == "0c9b6f1e2d4a58c7b3e1f0a9d8c7b6a5")
        #expect(response.serverTime == (try date("2026-03-20T18:22:11.482Z")))
        let notes = try #require(response.manifest.tables.first)
        #expect(notes.name == "notes" && notes.primaryKey == ["id"])
        #expect(notes.updatedAtColumn == "updated_at" && notes.deletedAtColumn == "deleted_at" && notes.composition == nil)
        #expect(notes.columns?.map(\.name) == ["id", "user_id", "title", "updated_at", "deleted_at"])
        #expect(notes.columns?.map(\.type) == [.string, .string, .string, .datetime, .datetime])
        #expect(notes.columns?.map(\.nullable) == [false, false, true, false, true])
        #expect(notes.indexes == [ManifestIndex(name: "idx_notes_user", columns: ["user_id"])])

        #expect(ManifestColumnType.knownCases.map(\.rawValue) == ["string", "int", "int64", "float", "boolean", "datetime", "date", "time", "json", "bytes"])
        // A table without timestamp columns leaves them out; the hint no 0.3.0 server sends decodes too.
        let bare = try decode(
            ManifestTable.self,
            #"{"name":"regions","primary_key":["id"],"composition":"multi_scope","columns":[{"name":"id","type":"uuid","nullable":false}],"indexes":[]}"#
        )
        #expect(bare.updatedAtColumn == nil && bare.deletedAtColumn == nil && bare.composition == .multiScope)
        #expect(bare.columns?.first?.type == .unknown("uuid") && bare.indexes == [])
    }

    @Test func theTablesExampleDecodes() throws {
        let text = #"""
            {"tables":[{"table_name":"notes","push_policy":"enabled","dependencies":[],"pk_column":"id",
                        "updated_at_column":"updated_at","deleted_at_column":"deleted_at",
                        "sync_columns":["id","user_id","title","updated_at","deleted_at"],"exclude_columns":["internal"]}],
             "server_time":"2026-03-20T18:22:11.482Z","schema_version":3,"schema_hash":"0c9b…"}
            """#
        let response = try decode(TablesListResponse.self, text)
        #expect(response.schemaVersion == 3 && response.schemaHash == "0c9b…")
        #expect(response.serverTime == (try date("2026-03-20T18:22:11.482Z")))
        let notes = try #require(response.tables.first)
        #expect(notes.tableName == "notes" && notes.pushPolicy == .enabled && notes.dependencies.isEmpty && notes.pkColumn == "id")
        #expect(notes.updatedAtColumn == "updated_at" && notes.deletedAtColumn == "deleted_at")
        #expect(notes.syncColumns == ["id", "user_id", "title", "updated_at", "deleted_at"] && notes.excludeColumns == ["internal"])

        let readOnly = try decode(
            SyncedTableInfo.self,
            #"""
            {"table_name":"regions","push_policy":"read_only","dependencies":[],"pk_column":"id",
             "updated_at_column":null,"deleted_at_column":null,"sync_columns":["id","name"],"exclude_columns":[]}
            """#
        )
        #expect(readOnly.pushPolicy == .readOnly && readOnly.updatedAtColumn == nil && readOnly.deletedAtColumn == nil)
    }

    // MARK: - §2.5 error envelope

    @Test func theErrorEnvelopeDecodes() throws {
        let mismatch = try decode(
            ErrorEnvelope.self,
            #"{"error":{"code":"schema_mismatch","message":"client schema 2:ab12 does not match server schema 3:0c9b","retryable":false}}"#
        )
        #expect(mismatch.error.code == .schemaMismatch && !mismatch.error.retryable)
        #expect(mismatch.error.message == "client schema 2:ab12 does not match server schema 3:0c9b")
        let upgrade = try decode(ErrorEnvelope.self, #"{"error":{"code":"upgrade_required","message":"unsupported protocol version","retryable":false}}"#)
        #expect(upgrade.error == ErrorEnvelopeBody(code: .upgradeRequired, message: "unsupported protocol version", retryable: false))
        let other = try decode(ErrorEnvelope.self, #"{"error":{"code":"capture_pending","message":"later","retryable":true}}"#)
        #expect(other.error.code == .unknown("capture_pending") && other.error.retryable)
        #expect(
            ProtocolErrorCode.knownCases.map(\.rawValue) == [
                "invalid_request", "auth_required", "schema_mismatch", "upgrade_required", "retry_later", "temporary_unavailable",
            ]
        )
        // The adapter's own shape is not an envelope: the error mapping must try both.
        #expect(throws: DecodingError.self) { try decode(ErrorEnvelope.self, #"{"error":"client upgrade required"}"#) }
    }

    // MARK: - Endpoints

    @Test func theEndpointsSendTheirMethodsPathsAndCredentials() async throws {
        let transport = RecordingTransport(responses: [
            "/sync/connect": #"{"server_time":"2026-03-20T18:22:11Z","protocol_version":2,"scope_set_version":1,"schema":{"version":3,"hash":"h","action":"none"},"scopes":{"add":[],"remove":[]}}"#,
            "/sync/push": #"{"server_time":"2026-03-20T18:22:11.482913227Z","accepted":[],"rejected":[]}"#,
            "/sync/pull": #"{"changes":[],"scope_set_version":1,"scope_cursors":{},"scope_updates":{"add":[],"remove":[]},"rebuild":[],"has_more":false,"checksums":{}}"#,
            "/sync/rebuild": #"{"scope":"global","records":[],"cursor":null,"has_more":false,"final_scope_cursor":"v2.f","checksum":"0"}"#,
            "/sync/schema": #"{"schema_version":3,"schema_hash":"h","server_time":"2026-03-20T18:22:11.482Z","manifest":{"tables":[]}}"#,
            "/sync/tables": #"{"tables":[],"server_time":"2026-03-20T18:22:11.482Z","schema_version":3,"schema_hash":"h"}"#,
        ])
        let client = APIClient(
            configuration: .init(
                baseURL: try #require(URL(string: "http://sync.test")),
                errorKinds: SynchroV2API.errorKinds,
                additionalHeaders: ["X-App-Version": "1.4.0"],
                retryPolicy: .none
            ),
            transport: transport,
            accessTokenProvider: { "token-1" }
        )
        let api = SynchroV2API(api: client)
        let schema = SchemaRef(version: 3, hash: "h")
        let connect = ConnectRequest(
            clientId: "c",
            platform: "ios",
            appVersion: "1.4.0",
            protocolVersion: 2,
            schema: schema,
            scopeSetVersion: 0,
            knownScopes: ["global": ScopeCursorRef()]
        )
        #expect(try await api.sync.connect(connect).schema.action == SchemaAction.none)
        #expect(try await api.sync.push(MutationPushRequest(clientId: "c", batchId: "b", schema: schema, mutations: [])).accepted.isEmpty)
        #expect(try await api.sync.pull(ScopedPullRequest(clientId: "c", schema: schema, scopeSetVersion: 1, scopes: [:], limit: 100)).checksums == [:])
        #expect(try await api.sync.rebuild(RebuildRequest(clientId: "c", scope: "global", limit: 100)).finalScopeCursor == "v2.f")
        #expect(try await api.sync.schema().manifest.tables.isEmpty)
        #expect(try await api.sync.tables().schemaVersion == 3)

        let sent = transport.requests.current
        #expect(sent.map(\.method) == ["POST", "POST", "POST", "POST", "GET", "GET"])
        #expect(sent.map(\.path) == ["/sync/connect", "/sync/push", "/sync/pull", "/sync/rebuild", "/sync/schema", "/sync/tables"])
        // Schema and tables need no credentials; the rest carry the bearer token.
        #expect(sent.map(\.authorization) == ["Bearer token-1", "Bearer token-1", "Bearer token-1", "Bearer token-1", nil, nil])
        #expect(sent.allSatisfy { $0.appVersion == "1.4.0" })
        #expect(sent[0].body.map { String(decoding: $0, as: UTF8.self) } == (try encoded(connect)))
        #expect(sent[3].body.map { String(decoding: $0, as: UTF8.self) } == #"{"client_id":"c","limit":100,"scope":"global"}"#)
        #expect(sent[4].body == nil && sent[5].body == nil)
    }

    // MARK: - Helpers

    private func decode<T: Decodable>(_: T.Type, _ text: String) throws -> T {
        try JSONCoding.makeDecoder().decode(T.self, from: Data(text.utf8))
    }

    private func encoded(_ value: some Encodable) throws -> String {
        String(decoding: try JSONCoding.makeEncoder().encode(value), as: UTF8.self)
    }

    private func json(_ text: String) throws -> JSONValue {
        try decode(JSONValue.self, text)
    }

    private func date(_ text: String) throws -> Date {
        try #require(TimestampParser.parse(text))
    }
}

/// Answers each path with a canned 200 body and records what was sent.
private struct RecordingTransport: HTTPTransport {
    struct Sent: Sendable {
        var method: String
        var path: String
        var authorization: String?
        var appVersion: String?
        var body: Data?
    }

    let responses: [String: String]
    let requests = Locked<[Sent]>([])

    func send(_ request: URLRequest) async throws -> (Data, HTTPURLResponse) {
        let url = try #require(request.url)
        requests.withLock {
            $0.append(
                Sent(
                    method: request.httpMethod ?? "",
                    path: url.path,
                    authorization: request.value(forHTTPHeaderField: "Authorization"),
                    appVersion: request.value(forHTTPHeaderField: "X-App-Version"),
                    body: request.httpBody
                )
            )
        }
        let body = try #require(responses[url.path], "no canned response for \(url.path)")
        let response = try #require(HTTPURLResponse(url: url, statusCode: 200, httpVersion: "HTTP/1.1", headerFields: ["Content-Type": "application/json"]))
        return (Data(body.utf8), response)
    }
}

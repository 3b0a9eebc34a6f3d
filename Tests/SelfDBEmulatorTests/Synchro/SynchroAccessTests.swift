import Foundation
import Testing

@testable import EmulatorSupport
@testable import SelfDBEmulator

@Suite("Synchro server: registration, auth, versions, errors")
struct SynchroAccessTests {
    @Test func registerUpsertsPerUserAndClient() async throws {
        try await withSyncEmulator { emulator, client in
            // Before fetching the schema a client registers with 0 and "".
            var fresh = client
            fresh.schemaVersion = 0
            fresh.schemaHash = ""
            let first = try await fresh.register()
            let id = try #require(first.json?["id"]?.stringValue)
            #expect(first.json?["checkpoint"] == 0)
            #expect(first.json?["schema_version"] == .int(client.schemaVersion))
            #expect(first.json?["schema_hash"] == .string(client.schemaHash))
            #expect(first.json?["last_sync_at"] == nil)
            #expect(first.json?["server_time"]?.stringValue != nil)

            let again = try await client.register()
            #expect(again.json?["id"] == .string(id), "same user and client_id: same registration")
            let otherDevice = try await client.device("device-2").register()
            #expect(otherDevice.json?["id"] != .string(id))
            let otherUser = try await client.asUser("user-b", emulator: emulator).register()
            #expect(otherUser.json?["id"] != .string(id), "client ids are per user")

            // After a snapshot the registration reports the checkpoint and last sync.
            _ = try await client.fullSnapshot(limit: 10)
            let later = try await client.register()
            #expect(later.json?["last_sync_at"]?.stringValue != nil)
            #expect(later.json?["checkpoint"] == 0)
        }
    }

    @Test func registerChecksItsBody() async throws {
        try await withSyncEmulator { _, client in
            let missingHash = try await client.send(
                "POST",
                "/sync/register",
                json: ["client_id": "d", "platform": "ios", "app_version": "1.0.0", "schema_version": 0]
            )
            #expect(missingHash.status == 400)
            #expect(missingHash.json?["error"] == "schema_hash is required")

            let wrongType = try await client.send(
                "POST",
                "/sync/register",
                json: ["client_id": 5, "platform": "ios", "app_version": "1.0.0", "schema_version": 0, "schema_hash": ""]
            )
            #expect(wrongType.status == 400)
            #expect(wrongType.json?["error"] == "client_id must be a string")

            let notJSON = try await client.send("POST", "/sync/register", raw: Array("{nope".utf8))
            #expect(notJSON.status == 400)
            #expect(notJSON.json?["error"] == "invalid request body")

            var stale = client
            stale.schemaVersion = 7
            let mismatch = try await stale.send(
                "POST",
                "/sync/register",
                json: stale.stamped(JSONObject([("platform", "ios"), ("app_version", "1.0.0")]))
            )
            #expect(mismatch.status == 409)
            #expect(mismatch.json?["code"] == "schema_mismatch")
            #expect(mismatch.json?["message"]?.stringValue != nil)
            #expect(mismatch.json?["server_schema_version"] == .int(client.schemaVersion))
        }
    }

    @Test func everySyncEndpointNeedsAValidToken() async throws {
        try await withSyncEmulator { emulator, client in
            // No X-API-Key anywhere: the sync paths are dispatched before SelfDB's key check.
            let health = try await client.send("GET", "/healthz", credentials: .none)
            #expect(health.status == 200)
            #expect(health.json == ["status": "ok"])

            for (method, path) in [("GET", "/sync/schema"), ("GET", "/sync/tables"), ("POST", "/sync/register"), ("POST", "/sync/pull"), ("POST", "/sync/push"), ("POST", "/sync/snapshot")] {
                let anonymous = try await client.send(method, path, json: method == "POST" ? [:] : nil, credentials: .none)
                #expect(anonymous.status == 401, "\(method) \(path)")
                #expect(anonymous.json?["error"]?.stringValue != nil)
                let forged = try await client.send(method, path, credentials: .token("not.a.token"))
                #expect(forged.status == 401, "\(method) \(path)")
            }
            let expired = emulator.syncAccessToken(forUser: "user-a", lifetime: -60)
            #expect(try await client.send("GET", "/sync/schema", credentials: .token(expired)).status == 401)
            // Without a configured secret, foreign tokens are refused.
            let foreign = ExternalToken.sign(["sub": "user-a", "exp": .int(Int64(Date().timeIntervalSince1970) + 600)], secret: SyncFixture.externalSecret)
            #expect(try await client.send("GET", "/sync/schema", credentials: .token(foreign)).status == 401)

            #expect(try await client.send("GET", "/sync/nowhere").status == 404)
            let wrongMethod = try await client.send("GET", "/sync/push")
            #expect(wrongMethod.status == 405)
            #expect(wrongMethod.json?["error"] == "method not allowed")
        }
    }

    @Test func selfDBAccessTokensWorkForSync() async throws {
        try await withSyncEmulator(configure: { $0.admin = .init(email: Fixture.adminEmail, password: Fixture.adminPassword) }) { emulator, client in
            let user = try await client.api.newUser("syncer@example.com")
            var signedIn = client
            signedIn.token = user.token
            try await signedIn.register()
            let created = try await signedIn.pushOne(Change.create("tasks", UUID().uuidString, Change.task("via SelfDB login")))
            #expect(created.outcome == "applied")
            #expect(try emulator.syncedRowCount(table: "tasks", userID: user.id) == 1)
        }
    }

    @Test func externalJWTSecretIsAccepted() async throws {
        try await withSyncEmulator(configure: { $0.syncJWTSecret = SyncFixture.externalSecret }) { emulator, client in
            let now = Int64(Date().timeIntervalSince1970)
            let token = ExternalToken.sign(["sub": "Ext-User-1", "exp": .int(now + 600), "aud": "app"], secret: SyncFixture.externalSecret)
            var external = client
            external.token = token
            try await external.register()
            let id = UUID().uuidString
            #expect(try await external.pushOne(Change.create("tasks", id, Change.task("external"))).outcome == "applied")
            // The user id is the lower-cased `sub`.
            #expect(try emulator.syncedRow(table: "tasks", id: id)?.ownerID == "ext-user-1")
            #expect(try emulator.syncedRow(table: "tasks", id: id)?.values["user_id"] == .string("ext-user-1"))

            let wrongSecret = ExternalToken.sign(["sub": "x", "exp": .int(now + 600)], secret: "another")
            #expect(try await client.send("GET", "/sync/schema", credentials: .token(wrongSecret)).status == 401)
            let expired = ExternalToken.sign(["sub": "x", "exp": .int(now - 600)], secret: SyncFixture.externalSecret)
            #expect(try await client.send("GET", "/sync/schema", credentials: .token(expired)).status == 401)
            let noSubject = ExternalToken.sign(["exp": .int(now + 600)], secret: SyncFixture.externalSecret)
            #expect(try await client.send("GET", "/sync/schema", credentials: .token(noSubject)).status == 401)
            let noExpiry = ExternalToken.sign(["sub": "x"], secret: SyncFixture.externalSecret)
            #expect(try await client.send("GET", "/sync/schema", credentials: .token(noExpiry)).status == 200)
        }
    }

    @Test func appVersionBelowTheMinimumIsRefused() async throws {
        try await withSyncEmulator(configure: { $0.syncMinimumAppVersion = "1.2.0" }) { _, client in
            for (version, status) in [("1.1.9", 426), ("1.2.0-beta.1", 426), ("garbage", 426), ("1.2.0", 200), ("1.10", 200), ("v2", 200)] {
                let response = try await client.send("GET", "/sync/schema", headers: ["X-App-Version": version])
                #expect(response.status == status, "\(version)")
                if status == 426 {
                    #expect(response.json == ["error": "client upgrade required"])
                }
            }
            var headerless = client
            headerless.appVersion = nil
            #expect(try await headerless.send("GET", "/sync/schema").status == 200, "a missing header is not checked")
            // Registration also checks the body's app_version.
            let old = try await headerless.send(
                "POST",
                "/sync/register",
                json: client.stamped(JSONObject([("platform", "ios"), ("app_version", "1.0.0")]))
            )
            #expect(old.status == 426)
            let current = try await headerless.send(
                "POST",
                "/sync/register",
                json: client.stamped(JSONObject([("platform", "ios"), ("app_version", "1.3.0")]))
            )
            #expect(current.status == 200)
        }
    }

    @Test func unregisteredClientsAreNotFound() async throws {
        try await withSyncEmulator { _, client in
            let snapshot = try await client.snapshot()
            #expect(snapshot.status == 404)
            #expect(snapshot.json == ["error": "client not registered"])
            #expect(try await client.pull(checkpoint: 0).status == 404)
            #expect(try await client.push([]).status == 404)
        }
    }

    @Test func bodiesAreValidated() async throws {
        try await withSyncEmulator { _, client in
            try await client.register()
            let noClient = try await client.send("POST", "/sync/pull", json: ["checkpoint": 0, "schema_version": .int(client.schemaVersion), "schema_hash": .string(client.schemaHash)])
            #expect(noClient.status == 400)
            #expect(noClient.json?["error"] == "client_id is required")
            let badCheckpoint = try await client.send("POST", "/sync/pull", json: client.stamped(JSONObject([("checkpoint", "ten")])))
            #expect(badCheckpoint.status == 400)
            let noChanges = try await client.send("POST", "/sync/push", json: client.stamped(JSONObject()))
            #expect(noChanges.json?["error"] == "changes is required")
            let badTime = try await client.push([Change.change("tasks", "x", "create", data: [:], clientUpdatedAt: "yesterday")])
            #expect(badTime.status == 400)
            #expect(badTime.json?["error"] == "changes[0].client_updated_at must be an RFC 3339 timestamp")
            let noID = try await client.push([["table_name": "tasks", "operation": "create", "client_updated_at": .string(Change.longAgo)]])
            #expect(noID.json?["error"] == "changes[0].id is required")
            let badCursor = try await client.snapshot(cursor: ["checkpoint": 0, "table_idx": 9, "after_id": ""])
            #expect(badCursor.status == 400)
            #expect(badCursor.json?["error"] == "cursor.table_idx is out of range")
            let array = try await client.send("POST", "/sync/pull", json: [1, 2])
            #expect(array.json?["error"] == "invalid request body")
        }
    }

    @Test func injectedFaultsUseSynchrosShape() async throws {
        try await withSyncEmulator { emulator, client in
            try await client.register()
            emulator.injectFault(.serviceUnavailable(), method: "POST", path: "/sync/pull")
            let unavailable = try await client.pull(checkpoint: 0)
            #expect(unavailable.status == 503)
            #expect(unavailable.header("retry-after") == "5")
            #expect(unavailable.json == ["error": "Service Unavailable", "retry_after": 5])

            emulator.injectFault(.tooManyRequests(retryAfter: 2), method: "POST", path: "/sync/push", count: 2)
            for _ in 0..<2 {
                let limited = try await client.push([])
                #expect(limited.status == 429)
                #expect(limited.header("retry-after") == "2")
                #expect(limited.json == ["error": "Too Many Requests", "retry_after": 2])
            }
            #expect(try await client.push([]).status == 200)

            emulator.injectFault(.internalServerError, method: "GET", path: "/sync/schema")
            let broken = try await client.send("GET", "/sync/schema")
            #expect(broken.status == 500)
            #expect(broken.json == ["error": "Internal Server Error"])
            #expect(emulator.requestCount(method: "POST", path: "/sync/push") == 3)
        }
    }

    @Test func responseLatencyStillAnswersCorrectly() async throws {
        try await withSyncEmulator(configure: { $0.responseLatency = .milliseconds(30) }) { _, client in
            try await client.register()
            #expect(try await client.send("GET", "/sync/schema").status == 200)
            #expect(try await client.api.send("GET", "/tables/").status == 200, "SelfDB routes answer too")
        }
    }
}

/// HS256 tokens signed with an arbitrary secret, as another identity provider issues them.
enum ExternalToken {
    static func sign(_ claims: JSONValue, secret: String) -> String {
        HS256.sign(claims, secret: Array(secret.utf8))
    }
}

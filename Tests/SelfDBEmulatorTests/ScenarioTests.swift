import Foundation
import Testing

@testable import SelfDBEmulator

/// The SDK integration scenarios, end to end over HTTP and WebSocket.
@Suite("SDK integration scenarios")
struct ScenarioTests {
    @Test func adminPublishesAndUserConsumesThenEverythingIsCleanedUp() async throws {
        try await withEmulator { emulator, client in
            // Admin: a public table with realtime and a public bucket.
            let admin = try await client.adminToken()
            let table = try await client.newTable(
                "announcements",
                schema: ["id": ["type": "uuid", "nullable": false], "text": ["type": "text"], "user_id": ["type": "uuid"]],
                public: true,
                token: admin
            )
            _ = try await client.send("PATCH", "/tables/\(table)", json: ["realtime_enabled": true], token: admin)
            let bucket = try await client.newBucket("public-assets", public: true, token: admin)
            _ = try await client.send(
                "POST",
                "/storage/files/upload",
                query: [("bucket_id", bucket), ("filename", "logo.svg"), ("content_type", "image/svg+xml")],
                raw: Array("<svg/>".utf8),
                token: admin
            )
            _ = try await client.send("POST", "/tables/\(table)/data", json: ["text": "welcome"], token: admin)

            // Regular user: reads the public resources.
            let user = try await client.newUser("consumer@example.com")
            let me = try await client.send("GET", "/users/me", token: user.token)
            #expect(me.json?["role"] == "USER")
            #expect(try await client.send("GET", "/tables/\(table)/data", token: user.token).json?["total"] == 1)
            let logo = try await client.send("GET", "/storage/files/download/public-assets/logo.svg", token: user.token)
            #expect(logo.header("content-type") == "image/svg+xml")
            #expect(logo.text == "<svg/>")

            // Realtime on both serializers sees the user's insert within 5 s.
            let v1 = try await RealtimeSocket(url: "ws://127.0.0.1:\(emulator.port)/realtime/socket?X-API-Key=\(Fixture.apiKey)&token=\(user.token)")
            v1.send(["topic": "table:announcements", "event": "phx_join", "payload": [:], "ref": "1"])
            #expect(await v1.nextJSON()?["payload"]?["status"] == "ok")
            let v2 = try await RealtimeSocket(url: "ws://127.0.0.1:\(emulator.port)/realtime/socket/websocket?vsn=2.0.0&X-API-Key=\(Fixture.apiKey)")
            v2.send(.array(["1", "1", "table:announcements", "phx_join", [:]]))
            #expect(await v2.nextJSON()?.arrayValue?[4]["status"] == "ok")
            let posted = try await client.send("POST", "/tables/\(table)/data", json: ["text": "hi from user", "user_id": .string(user.id)], token: user.token)
            #expect(posted.status == 200)
            #expect(await v1.nextJSON()?["payload"]?["new"]?["text"] == "hi from user")
            #expect(await v2.nextJSON()?.arrayValue?[4]["new"]?["text"] == "hi from user")
            await v1.close()
            await v2.close()

            // The user's own private resources: created, used, deleted.
            let privateTable = try await client.newTable("my_notes", schema: ["body": ["type": "text"]], public: false, token: user.token)
            _ = try await client.send("POST", "/tables/\(privateTable)/data", json: ["body": "secret"], token: user.token)
            #expect(try await client.send("GET", "/tables/\(privateTable)/data").status == 401)
            let privateBucket = try await client.newBucket("my-private", public: false, token: user.token)
            _ = try await client.send("POST", "/storage/files/upload", query: [("bucket_id", privateBucket), ("filename", "diary.txt")], raw: Array("dear".utf8), token: user.token)
            #expect(try await client.send("GET", "/storage/files/download/my-private/diary.txt").status == 401)
            #expect(try await client.send("GET", "/storage/files/download/my-private/diary.txt", token: user.token).text == "dear")
            #expect(try await client.send("DELETE", "/tables/\(privateTable)", token: user.token).status == 200)
            #expect(try await client.send("DELETE", "/storage/buckets/\(privateBucket)", token: user.token).status == 204)

            // Cleanup by the admin leaves nothing behind.
            #expect(try await client.send("DELETE", "/tables/\(table)", token: admin).status == 200)
            #expect(try await client.send("DELETE", "/storage/buckets/\(bucket)", token: admin).status == 204)
            #expect(try await client.send("DELETE", "/users/\(user.id)", token: admin).status == 200)
            #expect(try await client.send("GET", "/tables/count", token: admin).json == 0)
            #expect(try await client.send("GET", "/storage/buckets/count", token: admin).json == 0)
            #expect(try await client.send("GET", "/storage/files/total-count", token: admin).json == 0)
            #expect(try await client.send("GET", "/users/count", token: admin).json == 1)
        }
    }
}

import Foundation
import Testing

@testable import EmulatorSupport
@testable import SelfDBEmulator

@Suite("Realtime")
struct RealtimeTests {
    static func socketURL(_ emulator: SelfDBEmulator, path: String = "/realtime/socket", query: String = "") -> String {
        "ws://127.0.0.1:\(emulator.port)\(path)?X-API-Key=\(Fixture.apiKey)\(query)"
    }

    @Test func v1JoinHeartbeatLeaveReplies() async throws {
        try await withEmulator { emulator, _ in
            let socket = try await RealtimeSocket(url: Self.socketURL(emulator, query: "&vsn=2.0.0"))
            socket.send(["topic": "table:orders", "event": "phx_join", "payload": [:], "ref": "1"])
            #expect(
                await socket.nextJSON() == [
                    "topic": "table:orders", "event": "phx_reply", "payload": ["status": "ok", "response": [:]], "ref": "1",
                ]
            )
            socket.send(["topic": "phoenix", "event": "heartbeat", "payload": [:], "ref": "2"])
            #expect(
                await socket.nextJSON() == [
                    "topic": "phoenix", "event": "phx_reply", "payload": ["status": "ok", "response": [:]], "ref": "2",
                ]
            )
            socket.send(["topic": "table:orders", "event": "phx_leave", "payload": [:], "ref": "3"])
            let leave = await socket.nextJSON()
            #expect(leave?["ref"] == "3")
            #expect(leave?["payload"]?["status"] == "ok")
            await socket.close()
        }
    }

    @Test func v1InsertEventArrivesOnRealtimeEnabledTable() async throws {
        try await withEmulator { emulator, client in
            let token = try await client.adminToken()
            let table = try await client.newTable("orders", schema: ["item": ["type": "text"]], public: true, token: token)
            #expect(try await client.send("PATCH", "/tables/\(table)", json: ["realtime_enabled": true], token: token).status == 200)
            let socket = try await RealtimeSocket(url: Self.socketURL(emulator, query: "&token=\(token)"))
            socket.send(["topic": "table:orders", "event": "phx_join", "payload": [:], "ref": "1"])
            #expect(await socket.nextJSON()?["event"] == "phx_reply")

            _ = try await client.send("POST", "/tables/\(table)/data", json: ["item": "tea"], token: token)
            let event = await socket.nextJSON()
            #expect(
                event == [
                    "topic": "table:orders", "event": "insert",
                    "payload": ["event": "INSERT", "table": "orders", "new": ["item": "tea"], "old": nil], "ref": nil,
                ]
            )
            await socket.close()
        }
    }

    @Test func v2ArrayFramesAtWebsocketPath() async throws {
        try await withEmulator { emulator, client in
            let token = try await client.adminToken()
            let table = try await client.newTable("events_v2", schema: ["id": ["type": "uuid"], "n": ["type": "integer"]], public: true, token: token)
            _ = try await client.send("PATCH", "/tables/\(table)", json: ["realtime_enabled": true], token: token)
            let socket = try await RealtimeSocket(url: Self.socketURL(emulator, path: "/realtime/socket/websocket", query: "&vsn=2.0.0"))
            socket.send(.array(["1", "1", "table:events_v2", "phx_join", [:]]))
            #expect(await socket.nextJSON() == ["1", "1", "table:events_v2", "phx_reply", ["status": "ok", "response": [:]]])
            socket.send(.array([nil, "2", "phoenix", "heartbeat", [:]]))
            #expect(await socket.nextJSON() == [nil, "2", "phoenix", "phx_reply", ["status": "ok", "response": [:]]])

            let inserted = try await client.send("POST", "/tables/\(table)/data", json: ["n": 1], token: token)
            let rowID = try #require(inserted.json?["data"]?["id"]?.stringValue)
            let insert = try #require(await socket.nextJSON()?.arrayValue)
            #expect(insert.count == 5)
            #expect(insert[2] == "table:events_v2")
            #expect(insert[3] == "insert")
            #expect(insert[4]["event"] == "INSERT")
            #expect(insert[4]["new"]?["n"] == 1)

            _ = try await client.send("PATCH", "/tables/\(table)/data/\(rowID)", json: ["n": 2], token: token)
            let update = try #require(await socket.nextJSON()?.arrayValue)
            #expect(update[3] == "update")
            #expect(update[4]["old"]?["n"] == 1)
            #expect(update[4]["new"]?["n"] == 2)

            _ = try await client.send("DELETE", "/tables/\(table)/data/\(rowID)", token: token)
            let delete = try #require(await socket.nextJSON()?.arrayValue)
            #expect(delete[3] == "delete")
            #expect(delete[4]["new"] == .null)
            #expect(delete[4]["old"]?["id"] == .string(rowID))
            await socket.close()
        }
    }

    @Test func tablesWithoutRealtimeStayQuiet() async throws {
        try await withEmulator { emulator, client in
            let token = try await client.adminToken()
            let table = try await client.newTable("quiet", schema: ["x": ["type": "text"]], public: true, token: token)
            let socket = try await RealtimeSocket(url: Self.socketURL(emulator))
            socket.send(["topic": "table:quiet", "event": "phx_join", "payload": [:], "ref": "1"])
            _ = await socket.nextJSON()
            _ = try await client.send("POST", "/tables/\(table)/data", json: ["x": "1"], token: token)
            // A heartbeat sent after the insert is answered after anything the insert produced.
            socket.send(["topic": "phoenix", "event": "heartbeat", "payload": [:], "ref": "9"])
            #expect(await socket.nextJSON()?["ref"] == "9")
            await socket.close()
        }
    }

    @Test func systemTablesBroadcastWithoutPasswordHashes() async throws {
        try await withEmulator { emulator, client in
            let token = try await client.adminToken()
            let socket = try await RealtimeSocket(url: Self.socketURL(emulator))
            for (ref, topic) in ["table:users", "table:buckets", "table:files", "table:tables"].enumerated() {
                socket.send(["topic": .string(topic), "event": "phx_join", "payload": [:], "ref": .string("\(ref)")])
                #expect(await socket.nextJSON()?["event"] == "phx_reply")
            }
            _ = try await client.newUser("watched@example.com")
            let user = await socket.next(where: { $0["topic"] == "table:users" })
            #expect(user?["event"] == "insert")
            #expect(user?["payload"]?["new"]?["email"] == "watched@example.com")
            #expect(user.map { JSONWriter.string($0).contains("password") } == false)

            let bucket = try await client.newBucket("watched-bucket", public: true, token: token)
            #expect(await socket.next(where: { $0["topic"] == "table:buckets" })?["payload"]?["new"]?["name"] == "watched-bucket")
            _ = try await client.send("POST", "/storage/files/upload", query: [("bucket_id", bucket), ("filename", "f.txt")], raw: [1, 2, 3], token: token)
            #expect(await socket.next(where: { $0["topic"] == "table:files" })?["payload"]?["new"]?["path"] == "f.txt")
            let table = try await client.newTable("watched_table", schema: ["a": ["type": "text"]], token: token)
            #expect(await socket.next(where: { $0["topic"] == "table:tables" })?["event"] == "insert")
            _ = try await client.send("DELETE", "/tables/\(table)", token: token)
            let deleted = await socket.next(where: { $0["topic"] == "table:tables" })
            #expect(deleted?["event"] == "delete")
            #expect(deleted?["payload"]?["old"]?["name"] == "watched_table")
            await socket.close()
        }
    }

    @Test func arrayFrameOnV1EndpointClosesTheSocket() async throws {
        try await withEmulator { emulator, _ in
            let socket = try await RealtimeSocket(url: Self.socketURL(emulator))
            socket.send(.array(["1", "1", "table:x", "phx_join", [:]]))
            #expect(await socket.waitUntilClosed())
            await socket.close()
        }
    }

    @Test func objectFrameOnV2EndpointClosesTheSocket() async throws {
        try await withEmulator { emulator, _ in
            let socket = try await RealtimeSocket(url: Self.socketURL(emulator, path: "/realtime/socket/websocket", query: "&vsn=2.0.0"))
            socket.send(["topic": "table:x", "event": "phx_join", "payload": [:], "ref": "1"])
            #expect(await socket.waitUntilClosed())
            await socket.close()
        }
    }

    @Test func silentSocketIsDroppedAfterIdleTimeout() async throws {
        // Long enough for the heartbeat's answer to come first on a loaded machine (with 1 s, a
        // full parallel run sometimes dropped the socket before it answered).
        try await withEmulator(idleTimeout: 4) { emulator, _ in
            let socket = try await RealtimeSocket(url: Self.socketURL(emulator))
            socket.send(["topic": "phoenix", "event": "heartbeat", "payload": [:], "ref": "1"])
            #expect(await socket.nextJSON() != nil)
            #expect(await socket.waitUntilClosed())
            await socket.close()
        }
    }

    @Test func badAPIKeyIsRefusedBeforeUpgrade() async throws {
        try await withEmulator { emulator, _ in
            await #expect(throws: (any Error).self) {
                _ = try await RealtimeSocket(url: "ws://127.0.0.1:\(emulator.port)/realtime/socket?X-API-Key=wrong")
            }
            await #expect(throws: (any Error).self) {
                _ = try await RealtimeSocket(url: "ws://127.0.0.1:\(emulator.port)/realtime/socket")
            }
        }
    }

    @Test func unknownTopicJoinIsAnError() async throws {
        try await withEmulator { emulator, _ in
            let socket = try await RealtimeSocket(url: Self.socketURL(emulator))
            socket.send(["topic": "room:lobby", "event": "phx_join", "payload": [:], "ref": "1"])
            let reply = await socket.nextJSON()
            #expect(reply?["payload"]?["status"] == "error")
            await socket.close()
        }
    }

    @Test func stopClosesOpenSockets() async throws {
        let emulator = try await SelfDBEmulator.start(.init(apiKey: Fixture.apiKey, passwordHashIterations: 1_000))
        let socket = try await RealtimeSocket(url: Self.socketURL(emulator))
        // A heartbeat reply proves the server side of the socket is registered.
        socket.send(["topic": "phoenix", "event": "heartbeat", "payload": [:], "ref": "1"])
        #expect(await socket.nextJSON() != nil)
        #expect(emulator.realtimeConnectionCount == 1)
        await emulator.stop()
        #expect(await socket.waitUntilClosed())
        await socket.close()
    }

    // Phoenix's answers the SDK depends on (SelfDB's real service, measured with
    // ../shared/kits/real-realtime): a second join closes the first, a leave ends with a close,
    // and with the service down the backend accepts the upgrade and closes the socket.

    @Test("a second V1 join of a joined topic is answered, then the first join is closed (no ref)")
    func duplicateV1JoinClosesTheFirst() async throws {
        try await withEmulator { emulator, _ in
            let socket = try await RealtimeSocket(url: Self.socketURL(emulator))
            socket.send(["topic": "table:orders", "event": "phx_join", "payload": [:], "ref": "1"])
            #expect(await socket.nextJSON()?["ref"] == "1")
            socket.send(["topic": "table:orders", "event": "phx_join", "payload": [:], "ref": "2"])
            let reply = await socket.nextJSON()
            #expect(reply?["event"] == "phx_reply")
            #expect(reply?["ref"] == "2")
            #expect(await socket.nextJSON() == ["topic": "table:orders", "event": "phx_close", "payload": [:], "ref": nil])
            await socket.close()
        }
    }

    @Test("a second V2 join closes the first with the first's join_ref")
    func duplicateV2JoinClosesTheFirst() async throws {
        try await withEmulator { emulator, _ in
            let socket = try await RealtimeSocket(url: Self.socketURL(emulator, path: "/realtime/socket/websocket", query: "&vsn=2.0.0"))
            socket.send(.array(["1", "1", "table:orders", "phx_join", [:]]))
            #expect(await socket.nextJSON()?.arrayValue?[3] == "phx_reply")
            socket.send(.array(["2", "2", "table:orders", "phx_join", [:]]))
            let reply = try #require(await socket.nextJSON()?.arrayValue)
            #expect(reply[0] == "2")
            #expect(reply[3] == "phx_reply")
            #expect(await socket.nextJSON() == ["1", "1", "table:orders", "phx_close", [:]])
            await socket.close()
        }
    }

    @Test("a leave is answered, then the channel is closed")
    func leaveEndsWithAClose() async throws {
        try await withEmulator { emulator, _ in
            let socket = try await RealtimeSocket(url: Self.socketURL(emulator))
            socket.send(["topic": "table:orders", "event": "phx_join", "payload": [:], "ref": "1"])
            #expect(await socket.nextJSON()?["ref"] == "1")
            socket.send(["topic": "table:orders", "event": "phx_leave", "payload": [:], "ref": "2"])
            #expect(await socket.nextJSON()?["ref"] == "2")
            #expect(await socket.nextJSON()?["event"] == "phx_close")
            // A leave of a topic not joined has nothing to close.
            socket.send(["topic": "table:other", "event": "phx_leave", "payload": [:], "ref": "3"])
            #expect(await socket.nextJSON()?["ref"] == "3")
            socket.send(["topic": "phoenix", "event": "heartbeat", "payload": [:], "ref": "4"])
            #expect(await socket.nextJSON()?["ref"] == "4")
            await socket.close()
        }
    }

    @Test("with the realtime service down, the upgrade succeeds and the socket is closed at once; an open socket stays open, silent")
    func serviceDownClosesAfterUpgrade() async throws {
        try await withEmulator { emulator, _ in
            let open = try await RealtimeSocket(url: Self.socketURL(emulator))
            open.send(["topic": "phoenix", "event": "heartbeat", "payload": [:], "ref": "1"])
            #expect(await open.nextJSON() != nil)
            emulator.realtimeServiceIsUp = false
            open.send(["topic": "phoenix", "event": "heartbeat", "payload": [:], "ref": "2"])
            #expect(await open.nextJSON(timeout: .milliseconds(500)) == nil)
            #expect(emulator.realtimeConnectionCount == 1)
            emulator.dropRealtimeSockets()
            #expect(await open.waitUntilClosed())
            // The upgrade itself succeeds (the initializer throws when it does not).
            let refused = try await RealtimeSocket(url: Self.socketURL(emulator))
            #expect(await refused.waitUntilClosed())
            emulator.realtimeServiceIsUp = true
            let back = try await RealtimeSocket(url: Self.socketURL(emulator))
            back.send(["topic": "phoenix", "event": "heartbeat", "payload": [:], "ref": "1"])
            #expect(await back.nextJSON()?["ref"] == "1")
            await open.close()
            await refused.close()
            await back.close()
        }
    }
}

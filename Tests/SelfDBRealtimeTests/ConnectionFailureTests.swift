import Foundation
import SelfDB
import SelfDBEmulator
import SelfDBRuntime
import Testing

/// The socket going away, going quiet, or talking nonsense.
@Suite("lost connections, dead heartbeats, refused joins, bad frames")
struct ConnectionFailureTests {
    @Test("the server restarts on the same port: the client reconnects, re-joins, and events after the restart arrive")
    func serverRestart() async throws {
        try await RealtimeFixture.run { fixture in
            let realtime = fixture.selfdb.realtime
            let states = Inbox<ConnectionState>.collecting(realtime.stateUpdates())
            defer { states.1.cancel() }
            try await realtime.connect()
            let callbacks = Inbox<RealtimePayload>()
            try await realtime.channel("table:realtime_notes").on(.insert) { callbacks.append($0) }.subscribe()
            let (typed, reader) = Inbox<TableChange<Tag>>.collecting(try await realtime.changes(Tag.self))
            defer { reader.cancel() }

            try await fixture.restartEmulator()
            _ = try await states.0.first { if case .disconnected(let reason) = $0 { reason != .notStarted } else { false } }
            _ = try await states.0.first { _ in
                // Connected again after the drop.
                let all = states.0.all
                guard let drop = all.lastIndex(where: { if case .disconnected(let r) = $0 { r != .notStarted } else { false } }) else { return false }
                return all[drop...].contains(.connected)
            }
            // Both channels are joined again before inserts are made.
            let deadline = ContinuousClock.now + .seconds(10)
            while !(realtime.channel("table:realtime_notes").isJoined && realtime.channel("table:realtime_tags").isJoined), ContinuousClock.now < deadline {
                try await Task.sleep(for: .milliseconds(20))
            }

            let note = try await fixture.selfdb.tables.data.insert(fixture.note("after restart"))
            let tag = try await fixture.selfdb.tables.data.insert(Tag(id: UUID(), name: "after restart", userId: fixture.adminID))
            #expect(try await callbacks.first().new?["body"] == "after restart")
            #expect(try await typed.first() == .insert(tag))
            #expect(note.body == "after restart")
        }
    }

    @Test("unanswered heartbeats close the socket and the client reconnects")
    func missedHeartbeats() async throws {
        // A second: short enough for the test to be quick, long enough for a loaded machine to
        // answer the heartbeat sent at once on the new socket before the next one is due.
        try await RealtimeFixture.run(heartbeat: .seconds(1)) { fixture in
            let realtime = fixture.selfdb.realtime
            let states = Inbox<ConnectionState>.collecting(realtime.stateUpdates())
            defer { states.1.cancel() }
            try await realtime.connect()
            let received = Inbox<RealtimePayload>()
            let channel = realtime.channel("table:realtime_notes").on(.insert) { received.append($0) }
            // With heartbeats this short, a loaded machine can answer one late and drop the
            // socket while the join is on the wire (the join then fails as disconnected).
            for attempt in 1...5 {
                do {
                    try await channel.subscribe()
                    break
                } catch let error as RealtimeError where [.disconnected, .notConnected].contains(error) && attempt < 5 {
                    try await Task.sleep(for: .milliseconds(200))
                }
            }

            fixture.emulator.current.answersRealtimeHeartbeats = false
            _ = try await states.0.first { $0 == .disconnected(.heartbeatTimeout) }
            fixture.emulator.current.answersRealtimeHeartbeats = true
            _ = try await states.0.first { _ in
                let all = states.0.all
                guard let drop = all.firstIndex(of: .disconnected(.heartbeatTimeout)) else { return false }
                return all[drop...].contains(.connected)
            }
            // Events reach the re-joined channel again. With heartbeats this short, a loaded CI
            // machine can answer one late and drop the new socket too, and Phoenix does not
            // replay what was broadcast meanwhile: so a note that went missing with such a drop
            // is followed by another, and the test asks that one of them arrives.
            var arrived = false
            for attempt in 1...5 where !arrived {
                let deadline = ContinuousClock.now + .seconds(20)
                while !realtime.channel("table:realtime_notes").isJoined, ContinuousClock.now < deadline {
                    try await Task.sleep(for: .milliseconds(20))
                }
                let body = "after the timeout \(attempt)"
                _ = try await fixture.selfdb.tables.data.insert(fixture.note(body))
                let waitUntil = ContinuousClock.now + .seconds(10)
                while !arrived, ContinuousClock.now < waitUntil {
                    arrived = received.all.contains { $0.new?["body"] == .string(body) }
                    try await Task.sleep(for: .milliseconds(20))
                }
            }
            #expect(arrived, "no note inserted after the reconnect arrived; states: \(states.0.all)")
        }
    }

    @Test("a join the server refuses is a typed error, and the channel is not joined")
    func refusedJoin() async throws {
        try await RealtimeFixture.run { fixture in
            try await fixture.selfdb.realtime.connect()
            let channel = fixture.selfdb.realtime.channel("rooms:lobby")
            await #expect(throws: RealtimeError.joinRefused(topic: "rooms:lobby", reason: "unmatched topic")) {
                try await channel.subscribe()
            }
            #expect(!channel.isJoined)
        }
    }

    @Test("malformed frames are reported and the connection keeps working")
    func malformedFrames() async throws {
        try await RealtimeFixture.run { fixture in
            let realtime = fixture.selfdb.realtime
            let problems = Inbox<RealtimeError>.collecting(realtime.problems())
            defer { problems.1.cancel() }
            let (typed, reader) = Inbox<TableChange<Note>>.collecting(
                try await {
                    try await realtime.connect()
                    return try await realtime.changes(Note.self)
                }()
            )
            defer { reader.cancel() }
            let emulator = fixture.emulator.current
            for frame in [
                "not json", "[1, 2]", #"{"topic": 5}"#, #"{"topic":"table:realtime_notes","event":"insert","payload":"oops","ref":null}"#,
                #"{"topic":"table:realtime_notes","event":"explode","payload":{"event":"EXPLODE"},"ref":null}"#,
            ] {
                emulator.sendRawRealtimeFrame(frame)
            }
            // A well-formed change whose row does not fit the model.
            emulator.sendRawRealtimeFrame(#"{"topic":"table:realtime_notes","event":"insert","payload":{"event":"INSERT","table":"realtime_notes","new":{"id":"not-a-uuid"},"old":null},"ref":null}"#)

            let deadline = ContinuousClock.now + .seconds(20)
            while problems.0.all.count < 6, ContinuousClock.now < deadline {
                try await Task.sleep(for: .milliseconds(20))
            }
            let reported = problems.0.all
            #expect(reported.filter { if case .malformedFrame = $0 { true } else { false } }.count == 5, "\(reported)")
            #expect(reported.contains { if case .undecodableRow(table: "realtime_notes", _) = $0 { true } else { false } }, "\(reported)")
            #expect(await realtime.state == .connected)

            let note = try await fixture.selfdb.tables.data.insert(fixture.note("still working"))
            #expect(try await typed.first() == .insert(note))
        }
    }

    @Test("calls before connect, and a server that is not there, are typed errors")
    func notConnected() async throws {
        try await RealtimeFixture.run { fixture in
            let realtime = fixture.selfdb.realtime
            await #expect(throws: RealtimeError.notConnected) {
                try await realtime.channel("table:realtime_notes").subscribe()
            }
            await #expect(throws: RealtimeError.notConnected) {
                _ = try await realtime.changes(Note.self)
            }

            // A port nothing listens on (the emulator's, after it stopped).
            let port = fixture.port
            await fixture.emulator.current.stop()
            let orphan = SelfDB(baseURL: URL(string: "http://127.0.0.1:\(port)")!, apiKey: RealtimeFixture.apiKey, realtime: RealtimeFixture.configuration())
            do {
                try await orphan.realtime.connect()
                Issue.record("connected to a stopped server")
            } catch let error as RealtimeError {
                guard case .connectionFailed = error else {
                    Issue.record("unexpected \(error)")
                    return
                }
            }
            guard case .disconnected(.connectFailed) = await orphan.realtime.state else {
                Issue.record("state is \(await orphan.realtime.state)")
                return
            }
        }
    }
}

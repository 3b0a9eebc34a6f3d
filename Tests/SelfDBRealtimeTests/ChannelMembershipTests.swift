import FlakyServerSupport
import Foundation
import SelfDB
import SelfDBEmulator
import SelfDBRuntime
import SelfDBTestSupport
import Testing

/// One join on the wire however many callers subscribe at once, and a channel state that says
/// what the server holds, whatever order the server's answers and closes come in.
@Suite("channels that stay joined")
struct ChannelMembershipTests {
    @Test("twenty concurrent subscribe() calls and two typed streams: one join on the wire, joined, each event once per handler", arguments: PhoenixSerializer.allCases)
    func concurrentSubscribes(serializer: PhoenixSerializer) async throws {
        try await RealtimeFixture.run(serializer) { fixture in
            let realtime = fixture.selfdb.realtime
            try await realtime.connect()
            let channel = realtime.channel("table:realtime_notes")
            let received = Inbox<RealtimePayload>()
            channel.on(.insert) { received.append($0) }
            let joinsBefore = fixture.emulator.current.realtimeJoinCount
            let readers = try await subscribeAtOnce(channel, times: 20, streams: 2, on: realtime)
            defer { for reader in readers { reader.1.cancel() } }

            #expect(fixture.emulator.current.realtimeJoinCount - joinsBefore == 1)
            #expect(channel.isJoined)
            #expect(fixture.emulator.current.realtimeSubscriberCount(topic: "table:realtime_notes") == 1)
            let note = try await fixture.selfdb.tables.data.insert(fixture.note("once"))
            _ = try await received.first()
            for reader in readers { #expect(try await reader.0.first() == .insert(note)) }
            // Anything delivered twice would have arrived by now, with the next event.
            _ = try await fixture.selfdb.tables.data.insert(fixture.note("next"))
            _ = try await received.first { $0.new?["body"] == "next" }
            #expect(received.all.count == 2)
            for reader in readers { #expect(try await reader.0.first { $0.row.body == "next" }.row.body == "next" && reader.0.all.count == 2) }
        }
    }

    @Test("concurrent subscribe() and unsubscribe() in any order: the channel's state is what the server holds", arguments: PhoenixSerializer.allCases)
    func interleavedSubscribesAndUnsubscribes(serializer: PhoenixSerializer) async throws {
        try await RealtimeFixture.run(serializer) { fixture in
            let realtime = fixture.selfdb.realtime
            try await realtime.connect()
            let channel = realtime.channel("table:realtime_notes")
            var random = SplitMix64(seed: serializer == .v1 ? 48 : 4_848)
            for round in 0..<8 {
                let plan = (0..<12).map { _ in random.next() % 2 == 0 }
                await withTaskGroup(of: Void.self) { group in
                    for subscribes in plan {
                        group.addTask { try? await (subscribes ? channel.subscribe() : channel.unsubscribe()) }
                    }
                }
                // Whatever the last call was, the channel settles where the server is.
                try await Task.sleep(for: .milliseconds(100))
                let held = fixture.emulator.current.realtimeSubscriberCount(topic: "table:realtime_notes")
                #expect(held == (channel.isJoined ? 1 : 0), "round \(round): server holds \(held), channel joined: \(channel.isJoined)")
            }
            try await channel.unsubscribe()
            #expect(!channel.isJoined)
            #expect(fixture.emulator.current.realtimeSubscriberCount(topic: "table:realtime_notes") == 0)
            try await channel.subscribe()
            #expect(channel.isJoined)
            #expect(fixture.emulator.current.realtimeSubscriberCount(topic: "table:realtime_notes") == 1)
            let received = Inbox<RealtimePayload>()
            channel.on(.insert) { received.append($0) }
            _ = try await fixture.selfdb.tables.data.insert(fixture.note("after the storm"))
            #expect(try await received.first().new?["body"] == "after the storm")
        }
    }

    @Test(
        "unsubscribe() and subscribe() in a row, twenty times, the closes of left channels arriving late: none ends the next join",
        arguments: PhoenixSerializer.allCases,
        [Duration.zero, .milliseconds(30)]
    )
    func leaveClosesDoNotEndTheNextJoin(serializer: PhoenixSerializer, closeDelay: Duration) async throws {
        try await RealtimeFixture.run(serializer) { fixture in
            // Late, each close comes after the next join's reply, as the real service's can.
            fixture.emulator.current.realtimeChannelCloseDelay = closeDelay
            let realtime = fixture.selfdb.realtime
            try await realtime.connect()
            let channel = realtime.channel("table:realtime_notes")
            let received = Inbox<RealtimePayload>()
            channel.on(.insert) { received.append($0) }
            try await channel.subscribe()
            for _ in 0..<20 {
                try await channel.unsubscribe()
                try await channel.subscribe()
            }
            // The closes of the left channels arrive after their leave's reply; give the last
            // one time to land.
            try await Task.sleep(for: .milliseconds(300))
            #expect(channel.isJoined)
            #expect(fixture.emulator.current.realtimeSubscriberCount(topic: "table:realtime_notes") == 1)
            _ = try await fixture.selfdb.tables.data.insert(fixture.note("still joined"))
            #expect(try await received.first().new?["body"] == "still joined")
        }
    }

    @Test("the server ends the current channel (phx_error, or phx_close with no ref on V1): rejoined, the feed says changes may be missing, no event twice")
    func serverEndsTheChannel() async throws {
        for crashed in [true, false] {
            try await RealtimeFixture.run(.v1) { fixture in
                let realtime = fixture.selfdb.realtime
                try await realtime.connect()
                let problems = Inbox<RealtimeError>.collecting(realtime.problems())
                defer { problems.1.cancel() }
                let feed = Inbox<TableFeedEvent<Note>>.collecting(try await realtime.changeFeed(Note.self))
                defer { feed.1.cancel() }
                let plain = Inbox<TableChange<Note>>.collecting(try await realtime.changes(Note.self))
                defer { plain.1.cancel() }
                let callbacks = Inbox<RealtimePayload>()
                let channel = realtime.channel("table:realtime_notes").on(.insert) { callbacks.append($0) }
                try await channel.subscribe()
                let before = try await fixture.selfdb.tables.data.insert(fixture.note("before"))
                #expect(try await feed.0.first() == .change(.insert(before)))

                let joinsBefore = fixture.emulator.current.realtimeJoinCount
                fixture.emulator.current.endRealtimeChannels(topic: "table:realtime_notes", crashed: crashed)
                _ = try await feed.0.first { $0 == .mayHaveMissedChanges }
                try await waitUntil("rejoined") { channel.isJoined && fixture.emulator.current.realtimeJoinCount > joinsBefore }
                #expect(fixture.emulator.current.realtimeJoinCount - joinsBefore == 1)
                if crashed { _ = try await problems.0.first { $0 == .channelError(topic: "table:realtime_notes") } }

                let after = try await fixture.selfdb.tables.data.insert(fixture.note("after"))
                _ = try await feed.0.first { $0 == .change(.insert(after)) }
                _ = try await callbacks.first { $0.new?["body"] == "after" }
                _ = try await plain.0.first { $0 == .insert(after) }
                #expect(feed.0.all == [.change(.insert(before)), .mayHaveMissedChanges, .change(.insert(after))])
                #expect(plain.0.all == [.insert(before), .insert(after)])
                #expect(callbacks.all.count == 2)
            }
        }
    }
}

/// The same against a real SelfDB (whose Phoenix answers a second join by closing the first,
/// its V1 close arriving after the second join's reply), when one is named.
@Suite("channels that stay joined, on any backend")
struct ChannelMembershipBackendTests {
    @Test("concurrent subscribes and streams, then twenty unsubscribe/subscribe in a row: joined, every event once per handler", arguments: RealtimeBackend.all)
    func staysJoined(backend: RealtimeBackend) async throws {
        try await RealtimeServer.run(backend) { server in
            try await server.prepareTable(Note.self)
            let (selfdb, user) = try await server.newUser(realtime: RealtimeFixture.configuration(.v1))
            let realtime = selfdb.realtime
            try await realtime.connect()
            let channel = realtime.channel("table:realtime_notes")
            let received = Inbox<RealtimePayload>()
            channel.on(.insert) { received.append($0) }
            let readers = try await subscribeAtOnce(channel, times: 10, streams: 2, on: realtime)
            defer { for reader in readers { reader.1.cancel() } }
            #expect(channel.isJoined)
            let device = try await server.otherDevice(of: user)
            let first = try await device.tables.data.insert(Note(id: UUID(), body: "first", rank: 1, userId: user.id))
            _ = try await received.first { $0.new?["body"] == "first" }
            for reader in readers { _ = try await reader.0.first { $0 == .insert(first) } }

            for _ in 0..<20 {
                try await channel.unsubscribe()
                try await channel.subscribe()
            }
            try await Task.sleep(for: .milliseconds(500))
            #expect(channel.isJoined)
            let last = try await device.tables.data.insert(Note(id: UUID(), body: "last", rank: 2, userId: user.id))
            _ = try await received.first { $0.new?["body"] == "last" }
            for reader in readers { _ = try await reader.0.first { $0 == .insert(last) } }
            try await Task.sleep(for: .milliseconds(300))
            #expect(received.all.compactMap { $0.new?["body"]?.stringValue } == ["first", "last"])
            for reader in readers { #expect(reader.0.all == [.insert(first), .insert(last)]) }
            try await realtime.disconnect()
        }
    }
}

/// Calls `channel.subscribe()` `times` times and opens `streams` typed streams of its table, all
/// at once; the streams' readers.
func subscribeAtOnce(_ channel: RealtimeChannel, times: Int, streams: Int, on realtime: RealtimeClient) async throws -> [(Inbox<TableChange<Note>>, Task<Void, Never>)] {
    try await withThrowingTaskGroup(of: Void.self) { group in
        for _ in 0..<times { group.addTask { try await channel.subscribe() } }
        try await group.waitForAll()
    }
    let opened = try await withThrowingTaskGroup(of: AsyncStream<TableChange<Note>>.self) { group in
        for _ in 0..<streams { group.addTask { try await realtime.changes(Note.self) } }
        return try await group.reduce(into: []) { $0.append($1) }
    }
    return opened.map { Inbox<TableChange<Note>>.collecting($0) }
}

/// Waits (up to `limit`, polling) until `condition` holds.
func waitUntil(_ what: String, within limit: Duration = .seconds(20), sourceLocation: SourceLocation = #_sourceLocation, _ condition: () throws -> Bool) async throws {
    let deadline = ContinuousClock.now + limit
    while ContinuousClock.now < deadline {
        if try condition() { return }
        try await Task.sleep(for: .milliseconds(10))
    }
    if try condition() { return }
    Issue.record("timed out waiting until \(what)", sourceLocation: sourceLocation)
}

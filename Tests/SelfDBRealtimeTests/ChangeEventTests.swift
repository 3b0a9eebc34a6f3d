import Foundation
import SelfDB
import SelfDBEmulator
import SelfDBRuntime
import Testing

/// Inserts, updates and deletes through the REST client reach subscribers, raw and typed,
/// in both frame formats.
@Suite("changes made through the API arrive on subscribed channels")
struct ChangeEventTests {
    @Test("callbacks and a typed stream see insert, update and delete", arguments: PhoenixSerializer.allCases)
    func callbacksAndTypedStream(_ serializer: PhoenixSerializer) async throws {
        try await RealtimeFixture.run(serializer) { fixture in
            let realtime = fixture.selfdb.realtime
            try await realtime.connect()
            let raw = Inbox<RealtimePayload>()
            let inserts = Inbox<RealtimePayload>()
            let channel = realtime.channel("table:realtime_notes")
                .on(.insert) { inserts.append($0) }
                .on(.update) { raw.append($0) }
                .on(.delete) { raw.append($0) }
                .on(.all) { raw.append($0) }
            try await channel.subscribe()
            let (typed, reader) = Inbox<TableChange<Note>>.collecting(try await realtime.changes(Note.self))
            defer { reader.cancel() }

            var note = try await fixture.selfdb.tables.data.insert(fixture.note("first"))
            let inserted = try await inserts.first()
            #expect(inserted.event == .insert && inserted.table == "realtime_notes")
            #expect(inserted.new?["body"] == "first")
            #expect(try inserted.decodeNew(as: Note.self)?.id == note.id)
            #expect(try await typed.first() == .insert(note))

            note.body = "edited"
            note = try await fixture.selfdb.tables.data.update(note)
            let updated = try await raw.first { $0.event == .update }
            #expect(updated.new?["body"] == "edited")
            let typedUpdate = try await typed.first { if case .update = $0 { true } else { false } }
            #expect(typedUpdate.row == note)

            try await fixture.selfdb.tables.data.delete(note)
            let deleted = try await raw.first { $0.event == .delete }
            #expect(deleted.old?["id"] == .string(note.id.uuidString.lowercased()) || deleted.old?["id"] == .string(note.id.uuidString))
            #expect(try await typed.first { if case .delete = $0 { true } else { false } } == .delete(note))

            // `.all` saw each of the three once, besides the specific handlers.
            #expect(raw.all.filter { $0.event == .update }.count == 2)
            #expect(raw.all.filter { $0.event == .insert }.count == 1)
        }
    }

    @Test("the SDK scenario: subscribe, insert via the API, callback within 5 s, disconnect")
    func sdkScenario() async throws {
        try await RealtimeFixture.run { fixture in
            let states = Inbox<ConnectionState>.collecting(fixture.selfdb.realtime.stateUpdates())
            defer { states.1.cancel() }
            try await fixture.selfdb.realtime.connect()
            #expect(fixture.emulator.current.realtimeConnectionCount == 1)
            let received = Inbox<RealtimePayload>()
            let channel = fixture.selfdb.realtime.channel("table:realtime_notes").on(.insert) { received.append($0) }
            try await channel.subscribe()
            #expect(channel.isJoined)

            _ = try await fixture.selfdb.tables.data.insert(fixture.note("hello"))
            #expect(try await received.first().new?["body"] == "hello")

            try await channel.unsubscribe()
            try await fixture.selfdb.realtime.disconnect()
            _ = try await states.0.first { $0 == .disconnected(.requested) }
            #expect(await fixture.selfdb.realtime.state == .disconnected(.requested))
            // The server notices the close.
            let deadline = ContinuousClock.now + .seconds(20)
            while fixture.emulator.current.realtimeConnectionCount > 0, ContinuousClock.now < deadline {
                try await Task.sleep(for: .milliseconds(20))
            }
            #expect(fixture.emulator.current.realtimeConnectionCount == 0)
        }
    }

    @Test("a left channel gets no more events; other channels keep theirs")
    func leavingStopsEvents() async throws {
        try await RealtimeFixture.run { fixture in
            let realtime = fixture.selfdb.realtime
            try await realtime.connect()
            let notes = Inbox<RealtimePayload>()
            let tags = Inbox<RealtimePayload>()
            let notesChannel = realtime.channel("table:realtime_notes").on(.all) { notes.append($0) }
            try await notesChannel.subscribe()
            try await realtime.channel("table:realtime_tags").on(.all) { tags.append($0) }.subscribe()

            _ = try await fixture.selfdb.tables.data.insert(fixture.note("before leaving"))
            _ = try await notes.first()
            try await notesChannel.unsubscribe()
            #expect(!notesChannel.isJoined)

            // One socket delivers in order: once the tag insert made after the note insert has
            // arrived, a note event would have arrived before it.
            _ = try await fixture.selfdb.tables.data.insert(fixture.note("after leaving"))
            _ = try await fixture.selfdb.tables.data.insert(Tag(id: UUID(), name: "marker", userId: fixture.adminID))
            _ = try await tags.first()
            #expect(notes.all.count == 1)
        }
    }

    @Test("a typed stream ends on cancellation and leaves a channel nobody else uses")
    func typedStreamEndsCleanly() async throws {
        try await RealtimeFixture.run { fixture in
            let realtime = fixture.selfdb.realtime
            try await realtime.connect()
            let stream = try await realtime.changes(Tag.self)
            let channel = realtime.channel("table:realtime_tags")
            #expect(channel.isJoined)
            let reader = Task {
                var count = 0
                for await _ in stream { count += 1 }
                return count
            }
            _ = try await fixture.selfdb.tables.data.insert(Tag(id: UUID(), name: "one", userId: fixture.adminID))
            let deadline = ContinuousClock.now + .seconds(20)
            reader.cancel()
            #expect(await reader.value <= 1)
            while channel.isJoined, ContinuousClock.now < deadline {
                try await Task.sleep(for: .milliseconds(20))
            }
            #expect(!channel.isJoined)
        }
    }
}

import Foundation
import SelfDB

/// The realtime step of the demo: a callback and a typed stream on the `Note` table, an
/// insert through the REST client, the event as it arrives, and disconnecting.
enum RealtimeDemo {
    static func run(_ selfdb: SelfDB, userID: UUID) async throws {
        Demo.step("Realtime: subscribe to table:\(Note.tableName), insert a row, receive the event")
        try await selfdb.realtime.connect()
        let (callbacks, callback) = AsyncStream<RealtimePayload>.makeStream()
        let channel = selfdb.realtime.channel("table:\(Note.tableName)")
            .on(.insert) { payload in callback.yield(payload) }
        try await channel.subscribe()
        let changes = try await selfdb.realtime.changes(Note.self)
        print("  connected; joined \(channel.topic)")

        let started = ContinuousClock.now
        let note = try await selfdb.tables.data.insert(Note(id: UUID(), title: "Sent live", body: "over the socket", createdAt: Date(), userId: userID))
        let payload = try await firstValue(of: callbacks, within: .seconds(5))
        print(
            "  callback: \(payload.event.rawValue) on \(payload.table), title \(payload.new?["title"]?.stringValue ?? "?") after \(started.duration(to: .now).formatted(.units(allowed: [.milliseconds])))"
        )
        let change = try await firstValue(of: changes, within: .seconds(5))
        print("  typed stream: \(change == .insert(note) ? "insert of the same Note" : "unexpected \(change)")")

        try await channel.unsubscribe()
        try await selfdb.realtime.disconnect()
        print("  unsubscribed and disconnected (\(await selfdb.realtime.state))")
    }

    private struct Timeout: Error, CustomStringConvertible {
        var description: String { "no realtime event within 5 s" }
    }

    /// The first element of `stream`, or a `Timeout` error.
    private static func firstValue<Element: Sendable>(of stream: AsyncStream<Element>, within limit: Duration) async throws -> Element {
        try await withThrowingTaskGroup(of: Element?.self) { group in
            group.addTask { await stream.first { _ in true } }
            group.addTask {
                try await Task.sleep(for: limit)
                return nil
            }
            defer { group.cancelAll() }
            guard let value = try await group.next() ?? nil else { throw Timeout() }
            return value
        }
    }
}

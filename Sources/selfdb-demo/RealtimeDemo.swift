import Foundation
import SelfDB

/// The realtime step of the demo: a callback and a typed stream on the `Note` table, an
/// insert through the REST client, the event as it arrives, and disconnecting.
///
/// A server whose realtime service cannot be reached (the socket does not open, or closes
/// before it answers the join) skips this part with a plain message rather than failing the
/// demo: everything else a SelfDB does works without it.
@MainActor
enum RealtimeDemo {
    static func run(_ selfdb: SelfDB, target: DemoTarget, userID: UUID, cleanup: DemoCleanup) async throws {
        let url = socketURL(target.baseURL)
        Demo.step("Realtime: subscribe to table:\(Note.tableName), insert a row, receive the event")
        let (callbacks, callback) = AsyncStream<RealtimePayload>.makeStream()
        let channel = selfdb.realtime.channel("table:\(Note.tableName)")
            .on(.insert) { payload in callback.yield(payload) }
        let changes: AsyncStream<TableChange<Note>>
        do {
            try await selfdb.realtime.connect()
            try await channel.subscribe()
            changes = try await selfdb.realtime.changes(Note.self)
        } catch let error as RealtimeError {
            // Stop the client's reconnecting: the rest of the demo does not need the socket.
            try? await selfdb.realtime.disconnect()
            guard let reason = unreachable(error) else { throw error }
            let token = try? await selfdb.apiClient.currentAccessToken()
            throw DemoSkip(reason: "realtime is not reachable at \(url) (\(redacted(reason, secrets: [target.apiKey, token])))")
        }
        print("  connected to \(url); joined \(channel.topic)")

        let started = ContinuousClock.now
        let note = try await selfdb.tables.data.insert(Note(id: UUID(), title: "Sent live", body: "over the socket", createdAt: Date(), userId: userID))
        cleanup.wrote(note)
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

    /// `ws[s]://host:port/realtime/socket`, without the query that carries the credentials.
    static func socketURL(_ baseURL: URL) -> String {
        guard var components = URLComponents(url: baseURL.appendingPathComponent("realtime/socket"), resolvingAgainstBaseURL: false) else {
            return baseURL.absoluteString
        }
        components.scheme = components.scheme?.lowercased() == "https" ? "wss" : "ws"
        components.query = nil
        return components.string ?? baseURL.absoluteString
    }

    /// Why the realtime service counts as not reachable, or nil for an error of a service that
    /// answered (a refused join, say), which fails the part instead.
    private static func unreachable(_ error: RealtimeError) -> String? {
        switch error {
        case .connectionFailed(let reason): "the socket did not open: \(reason)"
        case .disconnected: "the socket closed before the server answered"
        case .replyTimeout: "the server did not answer the join in time"
        default: nil
        }
    }

    /// `text` with the API key and the token (a transport's error can quote the socket URL,
    /// which carries both) blanked out.
    private static func redacted(_ text: String, secrets: [String?]) -> String {
        secrets.compactMap { $0 }.filter { !$0.isEmpty }.reduce(text) { $0.replacingOccurrences(of: $1, with: "…") }
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

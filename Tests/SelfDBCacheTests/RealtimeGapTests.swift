import FlakyServerSupport
import Foundation
import SelfDB
import SelfDBCache
import Testing

/// Changes made while the realtime socket is down are never delivered (the server does not
/// replay them): `followRealtime` must catch up the views it feeds by itself once the channel
/// is joined again.
@Suite("no gaps in a cached view after a realtime outage")
@MainActor
struct RealtimeGapTests {
    @Test("the realtime service is down while another device inserts 5 rows and deletes 1: the view equals the server soon after the rejoin", arguments: RealtimeBackend.all)
    func viewCatchesUpAfterAnOutage(backend: RealtimeBackend) async throws {
        try await RealtimeServer.run(backend) { server in
            try await server.prepareTable(Chore.self)
            // Heartbeats every 5 s: a real SelfDB leaves the socket open and silent when its
            // realtime service stops, and only a heartbeat finds that out.
            let realtime = RealtimeConfiguration(
                serializer: .v1,
                heartbeatInterval: .seconds(5),
                replyTimeout: .seconds(5),
                reconnectBackoff: ReconnectBackoff(initial: .milliseconds(200), maximum: .seconds(2)),
                reconnectTriggers: []
            )
            let (selfdb, user) = try await server.newUser(realtime: realtime)
            let marker = "gap-\(user.id.uuidString.prefix(8))"
            let device = try await server.otherDevice(of: user)
            var seeded: [Chore] = []
            for rank in 1...2 {
                seeded.append(try await device.tables.data.insert(Chore(id: UUID(), title: "\(marker) \(rank)", rank: rank, userId: user.id)))
            }
            let path = FileManager.default.temporaryDirectory.appendingPathComponent("gap-cache-\(UUID().uuidString).sqlite").path
            defer { try? FileManager.default.removeItem(atPath: path) }
            let cache = try SelfDBCache(selfdb: selfdb, path: path)
            let query = Chore.query().search(marker).sort(.rank, .asc)
            let fetcher = cache.fetcher(Chore.self, .all(view: "gap", query: query, pageSize: 100))
            try await fetcher.setup()
            #expect(Set(fetcher.rows.map(\.id)) == Set(seeded.map(\.id)))

            try await selfdb.realtime.connect()
            let following = Task { try await cache.followRealtime(Chore.self, insertingInto: ["gap"], at: .append) }
            defer { following.cancel() }
            let channel = selfdb.realtime.channel("table:cache_chores")
            try await eventually("the channel to be joined") { channel.isJoined }

            // A live change first: it reaches the view through the socket.
            let live = try await device.tables.data.insert(Chore(id: UUID(), title: "\(marker) live", rank: 3, userId: user.id))
            try await eventually("the live insert to reach the view") { fetcher.rows.contains(live) }

            try await server.setServiceUp(false)
            try await eventually("the socket to drop") { !channel.isJoined }
            for rank in 4...8 {
                _ = try await device.tables.data.insert(Chore(id: UUID(), title: "\(marker) \(rank)", rank: rank, userId: user.id))
            }
            try await device.tables.data.delete(seeded[0])
            let expected = try await device.tables.data.query(Chore.self).search(marker).sort(.rank, .asc).pageSize(100).execute()
            #expect(expected.count == 7)
            // Nothing could have told the view yet.
            #expect(Set(fetcher.rows.map(\.id)) == Set(seeded.map(\.id) + [live.id]))

            try await server.setServiceUp(true)
            try await eventually("the channel to be joined again") { channel.isJoined }
            let rejoined = ContinuousClock.now
            try await eventually("the view to equal the server") { fetcher.rows == expected }
            let caughtUp = ContinuousClock.now - rejoined
            print("realtime gap (\(backend.testDescription)): the view equals the server \(caughtUp) after the rejoin")
            #expect(fetcher.rows == expected)
            #expect(try cache.items(Chore.self, view: "gap").map(\.row) == expected)

            // And live changes flow again.
            let after = try await device.tables.data.insert(Chore(id: UUID(), title: "\(marker) after", rank: 9, userId: user.id))
            try await eventually("a change after the outage to reach the view") { fetcher.rows.last == after }
            try await selfdb.realtime.disconnect()
        }
    }
}

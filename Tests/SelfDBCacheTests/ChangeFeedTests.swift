import Foundation
import SelfDB
import SelfDBCache
import Testing

@Suite("changes made elsewhere (the realtime seam)")
@MainActor
struct ChangeFeedTests {
    @Test func insertsUpdatesAndDeletesFromAStreamUpdateViewsLive() async throws {
        try await CacheFixture.run { fixture in
            let (selfdb, user, seeded) = try await fixture.seeded(2)
            let cache = try SelfDBCache(selfdb: selfdb, path: fixture.cachePath())
            let fetcher = cache.fetcher(Chore.self, .all(view: "live", query: Chore.query().sort(.rank, .asc)))
            try await fetcher.setup()

            // Real rows written by another client, reported as a stream of changes.
            let other = try await selfdb.tables.data.insert(Chore(id: UUID(), title: "from elsewhere", rank: 3, userId: user.id))
            var renamed = seeded[0]
            renamed.title = "renamed elsewhere"
            renamed = try await selfdb.tables.data.update(renamed)
            try await selfdb.tables.data.delete(seeded[1])
            let (changes, continuation) = AsyncStream.makeStream(of: CacheChange<Chore>.self)
            let following = Task { try await cache.follow(changes, insertingInto: ["live"], at: .append) }
            continuation.yield(.insert(other))
            continuation.yield(.update(renamed))
            continuation.yield(.delete(seeded[1]))
            continuation.finish()
            try await following.value

            try await eventually("the changes to reach the fetcher") { fetcher.rows.map(\.title) == ["renamed elsewhere", "from elsewhere"] }
            try await fetcher.reload()
            #expect(fetcher.rows == (try await CacheFixture.serverRows(selfdb)))
        }
    }

    @Test func realtimeChangesFromAnotherClientReachTheCachedView() async throws {
        try await CacheFixture.run { fixture in
            let (selfdb, user, seeded) = try await fixture.seeded(2)
            let cache = try SelfDBCache(selfdb: selfdb, path: fixture.cachePath())
            let fetcher = cache.fetcher(Chore.self, .all(view: "live", query: Chore.query().sort(.rank, .asc)))
            try await fetcher.setup()
            try await selfdb.realtime.connect()
            let following = Task { try await cache.followRealtime(Chore.self, insertingInto: ["live"], at: .append) }
            defer { following.cancel() }
            try await eventually("the realtime channel to be joined") { selfdb.realtime.channel("table:cache_chores").isJoined }

            // The same user on another device: its own client, its own session.
            let device = SelfDB(baseURL: selfdb.apiClient.configuration.baseURL, apiKey: CacheFixture.apiKey)
            try await device.auth.login(email: user.email, password: CacheFixture.password)
            let added = try await device.tables.data.insert(Chore(id: UUID(), title: "added on the other device", rank: 9, userId: user.id))
            var renamed = seeded[0]
            renamed.title = "renamed on the other device"
            _ = try await device.tables.data.update(renamed)
            try await device.tables.data.delete(seeded[1])

            try await eventually("the realtime changes to reach the view") {
                fetcher.rows.map(\.title) == ["renamed on the other device", "added on the other device"]
            }
            #expect(fetcher.rows.last == added)
            try await selfdb.realtime.disconnect()
        }
    }
}

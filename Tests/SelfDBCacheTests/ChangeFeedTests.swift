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
}

import Foundation
import SelfDB
import SelfDBCache
import Testing

@Suite("fetch one item, and refreshing the other views")
@MainActor
struct FetchOneTests {
    @Test func oneItemFromTheServerThenFromTheCache() async throws {
        try await CacheFixture.run { fixture in
            let (selfdb, _, seeded) = try await fixture.seeded(3)
            let cache = try SelfDBCache(selfdb: selfdb, path: fixture.cachePath())
            let detail = cache.fetcher(Chore.self, .one(seeded[2].id))
            #expect(detail.value == .initial)
            try await detail.setup()
            #expect(detail.item?.row == seeded[2])

            let missing = cache.fetcher(Chore.self, .one(UUID()))
            try await missing.setup()
            #expect(missing.value == .empty)

            // Deleted on the server: the detail empties on its next refresh.
            try await selfdb.tables.data.delete(seeded[2])
            try await detail.reload()
            #expect(detail.value == .empty)
            #expect(try cache.item(Chore.self, id: seeded[2].id.uuidString) == nil)
        }
    }

    @Test func aConfirmedInsertCanReloadTheOtherViews() async throws {
        try await CacheFixture.run { fixture in
            let (selfdb, user, _) = try await fixture.seeded(2)
            let cache = try SelfDBCache(selfdb: selfdb, path: fixture.cachePath())
            let recent = cache.fetcher(Chore.self, .all(view: "recent", query: Chore.query().sort(.rank, .desc)))
            let ranked = cache.fetcher(Chore.self, .all(view: "ranked", query: Chore.query().sort(.rank, .asc)))
            try await recent.setup()
            try await ranked.setup()
            let added = Chore(id: UUID(), title: "added", rank: 0, userId: user.id)
            #expect(try await cache.insert(added, into: "recent", at: .prepend, reloadOtherViews: true).isConfirmed)
            try await eventually("the insert at the top of its view") { recent.rows.first == added }
            try await eventually("the other view to refetch and list it first") { ranked.rows.first == added }
            #expect(ranked.rows.count == 3)
        }
    }

    @Test func evictionByAge() async throws {
        try await CacheFixture.run { fixture in
            let (selfdb, _, _) = try await fixture.seeded(2)
            let cache = try SelfDBCache(selfdb: selfdb, path: fixture.cachePath())
            do {
                let old = cache.fetcher(Chore.self, .all(view: "old"))
                try await old.setup()
            }
            #expect(try cache.evict(EvictionPolicy(maximumIdleViews: 100, maximumAge: 3600)) == 0)
            try await eventually("the released view to be evicted by age") {
                try cache.evict(EvictionPolicy(maximumIdleViews: 100, maximumAge: -1)) == 1
            }
            #expect(try cache.items(Chore.self, view: "old").isEmpty)
        }
    }
}

import Foundation
import SelfDB
import SelfDBCache
import Testing

@Suite("paging a view")
@MainActor
struct PaginationTests {
    @Test func insertsBetweenPagesLeaveNoDuplicatesOrHoles() async throws {
        try await CacheFixture.run { fixture in
            let (selfdb, user, _) = try await fixture.seeded(10)
            let cache = try SelfDBCache(selfdb: selfdb, path: fixture.cachePath())
            let fetcher = cache.fetcher(Chore.self, .all(view: "pages", query: Chore.query().sort(.rank, .asc), pageSize: 4))
            try await fetcher.setup()
            #expect(fetcher.rows.map(\.rank) == [1, 2, 3, 4])
            #expect(fetcher.hasNext)

            // Rows that sort before the loaded page shift the server's offsets by two.
            for rank in [-2, -1] {
                try await selfdb.tables.data.insert(Chore(id: UUID(), title: "early \(rank)", rank: rank, userId: user.id))
            }
            try await fetcher.loadMore()
            try await fetcher.loadMore()
            try await fetcher.loadMore()
            #expect(!fetcher.hasNext)
            let ranks = fetcher.rows.compactMap { $0.rank }
            #expect(ranks == Array(1...10), "every row once, in order")
            #expect(Set(fetcher.items.map(\.id)).count == fetcher.items.count)

            try await fetcher.reload()
            #expect(fetcher.rows.compactMap { $0.rank } == [-2, -1, 1, 2])
        }
    }

    @Test func allPagesAndReloadCancellingALoad() async throws {
        try await CacheFixture.run { fixture in
            let (selfdb, _, _) = try await fixture.seeded(7)
            let cache = try SelfDBCache(selfdb: selfdb, path: fixture.cachePath())
            let fetcher = cache.fetcher(Chore.self, .all(view: "everything", query: Chore.query().sort(.rank, .desc), pageSize: 3, allPages: true))
            try await fetcher.setup()
            #expect(fetcher.rows.compactMap { $0.rank } == [7, 6, 5, 4, 3, 2, 1])

            let paged = cache.fetcher(Chore.self, .all(view: "paged", query: Chore.query().sort(.rank, .desc), pageSize: 3))
            try await paged.setup()
            let inFlight = Task { try await paged.load() }
            try await paged.reload()
            _ = await inFlight.result
            #expect(paged.rows.compactMap { $0.rank }.prefix(3) == [7, 6, 5])
            #expect(Set(paged.items.map(\.id)).count == paged.items.count)
            #expect(paged.state == .idle)
        }
    }
}

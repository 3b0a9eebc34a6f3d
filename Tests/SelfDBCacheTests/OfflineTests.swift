import Foundation
import SelfDB
import SelfDBCache
import Testing

@Suite("reading and writing while the server is down, then catching up")
@MainActor
struct OfflineTests {
    @Test func offlineReadsAndWritesReachTheServerWhenItReturns() async throws {
        try await CacheFixture.run { fixture in
            let (selfdb, user, seeded) = try await fixture.seeded(4)
            let cache = try SelfDBCache(selfdb: selfdb, path: fixture.cachePath())
            let strategy = FetchStrategy<Chore>.all(view: "by-rank", query: Chore.query().sort(.rank, .asc), pageSize: 10)
            let online = cache.fetcher(Chore.self, strategy)
            try await online.setup()
            #expect(online.rows.map(\.rank) == [1, 2, 3, 4])

            await fixture.stopServer()

            // Same view and item, read back from the cache with the server gone.
            let offline = cache.fetcher(Chore.self, strategy)
            await #expect(throws: CacheError.self) { try await offline.setup() }
            #expect(offline.rows == online.rows)
            #expect(offline.lastError.map { if case .offline = $0 { true } else { false } } == true)
            let one = cache.fetcher(Chore.self, .one(seeded[1].id))
            try await one.setup(cacheOnly: true)
            #expect(one.item?.row == seeded[1])

            // Mutations made offline are applied at once and queued.
            let added = Chore(id: UUID(), title: "written offline", rank: 0, userId: user.id)
            #expect(try await cache.insert(added, into: "by-rank", at: .prepend) == .pending)
            var renamed = seeded[2]
            renamed.title = "renamed offline"
            #expect(try await cache.update(renamed) == .pending)
            #expect(try await cache.delete(seeded[3]) == .pending)
            #expect(try cache.pendingMutationCount() == 3)
            try await eventually("the optimistic changes in the view") {
                offline.items.map(\.state) == [.inserting, .normal, .normal, .updating, .deleting]
                    && offline.rows.map(\.title) == ["written offline", "chore 1", "chore 2", "renamed offline", "chore 4"]
            }

            try await fixture.restartServer()
            let report = await cache.synchronize()
            #expect(report.sent == 3)
            #expect(report.remaining == 0)
            #expect(report.rejected.isEmpty)

            let server = try await CacheFixture.serverRows(selfdb)
            #expect(server.map(\.title) == ["written offline", "chore 1", "chore 2", "renamed offline"])
            try await offline.reload()
            #expect(offline.rows == server)
            #expect(offline.items.allSatisfy { $0.state == .normal })
        }
    }

    @Test func cacheOnlySetupNeverTouchesTheNetwork() async throws {
        try await CacheFixture.run { fixture in
            let (selfdb, _, _) = try await fixture.seeded(2)
            let cache = try SelfDBCache(selfdb: selfdb, path: fixture.cachePath())
            fixture.emulator.resetRecordedRequests()
            let fetcher = cache.fetcher(Chore.self, .all(view: "never-fetched"))
            try await fetcher.setup(cacheOnly: true)
            try await fetcher.load()
            try await fetcher.reload()
            #expect(fetcher.value == .empty)
            #expect(fetcher.state == .idle)
            #expect(fixture.emulator.recordedRequests().isEmpty)
        }
    }
}

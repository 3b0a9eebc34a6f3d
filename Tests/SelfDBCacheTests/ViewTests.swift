import Foundation
import SelfDB
import SelfDBCache
import Testing

@Suite("views: shared items, positions, notifications, eviction, bad input")
@MainActor
struct ViewTests {
    @Test func oneItemSharedByViewsAndStreamedValues() async throws {
        try await CacheFixture.run { fixture in
            let (selfdb, user, seeded) = try await fixture.seeded(3)
            let cache = try SelfDBCache(selfdb: selfdb, path: fixture.cachePath())
            let ascending = cache.fetcher(Chore.self, .all(view: "asc", query: Chore.query().sort(.rank, .asc)))
            let top = cache.fetcher(Chore.self, .all(view: "top", query: Chore.query().sort(.rank, .desc), pageSize: 2))
            let filtered = cache.fetcher(Chore.self, .all(view: "asc", query: Chore.query().where(\.rank, .greaterThan(1))), itemFilter: { $0.title != "hidden" })
            try await ascending.setup()
            try await top.setup()
            try await filtered.setup(cacheOnly: true)
            #expect(filtered.rows.map(\.rank) == [2, 3])

            var values = top.values.makeAsyncIterator()
            #expect(await values.next()?.items.map(\.row.rank) == [3, 2])

            var edited = seeded[2]
            edited.title = "hidden"
            #expect(try await cache.update(edited).isConfirmed)
            try await eventually("every view to show the edit") {
                ascending.rows.last?.title == "hidden" && top.rows.first?.title == "hidden" && filtered.rows.map(\.rank) == [2]
            }
            var sawEdit = false
            while let value = await values.next() {
                if value.items.first?.row.title == "hidden" {
                    sawEdit = true
                    break
                }
            }
            #expect(sawEdit)

            // Insert positions.
            let before = Chore(id: UUID(), title: "before 2", rank: 20, userId: user.id)
            let after = Chore(id: UUID(), title: "after 2", rank: 21, userId: user.id)
            let last = Chore(id: UUID(), title: "last", rank: 22, userId: user.id)
            try await cache.insert(before, into: "asc", at: .before(id: seeded[1].id.uuidString))
            try await cache.insert(after, into: "asc", at: .after(id: seeded[1].id.uuidString))
            try await cache.insert(last, into: "asc", at: .append)
            try await eventually("the inserts in place") {
                ascending.rows.map(\.title) == ["chore 1", "before 2", "chore 2", "after 2", "hidden", "last"]
            }

            // A delete leaves every view.
            try await cache.delete(seeded[2])
            try await eventually("the delete everywhere") { !ascending.rows.contains(edited) && !top.rows.contains(edited) }
        }
    }

    @Test func evictionSparesLiveViewsAndPendingItems() async throws {
        try await CacheFixture.run { fixture in
            let (selfdb, user, _) = try await fixture.seeded(3)
            let cache = try SelfDBCache(selfdb: selfdb, path: fixture.cachePath())
            let live = cache.fetcher(Chore.self, .all(view: "live"))
            try await live.setup()
            do {
                let idle = cache.fetcher(Chore.self, .all(view: "idle"))
                try await idle.setup()
            }
            await fixture.stopServer()
            let pending = Chore(id: UUID(), title: "pending", rank: 4, userId: user.id)
            #expect(try await cache.insert(pending, into: "queued") == .pending)
            try await eventually("the idle fetcher to be released") { try cache.evict(EvictionPolicy(maximumIdleViews: 0)) >= 1 }
            #expect(try cache.items(Chore.self, view: "idle").isEmpty)
            #expect(try cache.items(Chore.self, view: "live").count == 3)
            #expect(try cache.items(Chore.self, view: "queued").map(\.row) == [pending])
        }
    }

    @Test func badArgumentsAreTypedErrors() async throws {
        try await CacheFixture.run { fixture in
            let (selfdb, user) = try await fixture.newUser()
            let cache = try SelfDBCache(selfdb: selfdb, path: fixture.cachePath())
            for strategy: FetchStrategy<Chore> in [
                .all(view: ""), .all(view: "#reserved"), .all(view: "ok", pageSize: 0), .all(view: "ok", query: Chore.query().search(String(repeating: "x", count: 101))), .one(id: ""),
            ] {
                let fetcher = cache.fetcher(Chore.self, strategy)
                do {
                    try await fetcher.setup()
                    Issue.record("\(strategy) was accepted")
                } catch let error as CacheError {
                    guard case .invalidArgument = error else {
                        Issue.record("expected invalidArgument, got \(error)")
                        continue
                    }
                }
            }
            await #expect(throws: CacheError.self) {
                try await cache.insert(Chore(id: UUID(), title: "x", userId: user.id), into: "")
            }
            #expect(try cache.pendingMutationCount() == 0)
        }
    }
}

import Foundation
import SelfDB
import SelfDBCache
import Testing

@Suite("a refused mutation restores the cache exactly")
@MainActor
struct RollbackTests {
    @Test func refusedUpdateAndDeleteRestoreRowAndOrder() async throws {
        try await CacheFixture.run { fixture in
            let (_, _, seeded) = try await fixture.seeded(3)
            let (stranger, strangerUser) = try await fixture.newUser("stranger")
            let cache = try SelfDBCache(selfdb: stranger, path: fixture.cachePath())
            let fetcher = cache.fetcher(Chore.self, .all(view: "all", query: Chore.query().sort(.rank, .asc)))
            try await fetcher.setup()
            // A local insert in the middle, so the order to restore is not the server's.
            let mine = Chore(id: UUID(), title: "mine", rank: 9, userId: strangerUser.id)
            #expect(try await cache.insert(mine, into: "all", at: .after(id: seeded[0].id.uuidString)).isConfirmed)
            try await eventually("the insert in the view") { fetcher.items.map(\.row.title) == ["chore 1", "mine", "chore 2", "chore 3"] }
            let before = fetcher.items

            var hijacked = seeded[1]
            hijacked.title = "not yours"
            do {
                try await cache.update(hijacked)
                Issue.record("the update of someone else's row succeeded")
            } catch let error as CacheError {
                guard case .rejected(.notFound) = error else {
                    Issue.record("expected a 404 rejection, got \(error)")
                    return
                }
                #expect(!error.userFriendlyMessage.isEmpty)
            }
            try await eventually("the rollback in the view") { fetcher.items == before }
            #expect(try cache.items(Chore.self, view: "all") == before)

            await #expect(throws: CacheError.self) { try await cache.delete(seeded[2]) }
            try await eventually("the second rollback in the view") { fetcher.items == before }
            #expect(try cache.items(Chore.self, view: "all") == before)
            #expect(try cache.pendingMutationCount() == 0)
        }
    }
}

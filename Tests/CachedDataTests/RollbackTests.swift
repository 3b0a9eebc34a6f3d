import CachedData
import CachedDataTestSupport
import Foundation
import Testing

@Suite("a refused mutation rolls the cache back exactly")
struct RollbackTests {
    func loaded() async throws -> (MemoFixture, CAFetcher<Memo>) {
        let fixture = try MemoFixture()
        let fetcher = fixture.fetcher(allPages: true)
        try await fetcher.setup()
        fixture.server.refusing = true
        return (fixture, fetcher)
    }

    @Test func insert() async throws {
        let (fixture, fetcher) = try await loaded()
        await #expect {
            try await fixture.handlers.insert(fixture.server.memo("x", "refused"), action: .action(.insertAfter(id: "m1"), viewId: "memos"))
        } throws: { error in
            guard case .failed? = error as? CAMutationError else { return false }
            return true
        }
        #expect(try await fixture.stored().map(\.id) == ["m1", "m2", "m3"])
        #expect(try await eventually { fetcher.ids == ["m1", "m2", "m3"] })
        #expect(try fixture.cache.pendingMutationCount() == 0)
    }

    @Test func update() async throws {
        let (fixture, fetcher) = try await loaded()
        var edited = fetcher.items[1]
        edited.text = "refused edit"
        await #expect(throws: CAMutationError.self) { try await fixture.handlers.update(edited, action: .action(.refresh)) }
        #expect(
            try await fixture.stored()
                == fetcher.items.map {
                    var memo = $0
                    memo.caState = .normal
                    return memo
                }
        )
        #expect(try await fixture.stored().map(\.text) == ["memo 1", "memo 2", "memo 3"])
        #expect(try await eventually { fetcher.items.map(\.text) == ["memo 1", "memo 2", "memo 3"] })
        #expect(fetcher.ids == ["m1", "m2", "m3"])
        #expect(fetcher.states.allSatisfy { $0 == .normal })
    }

    @Test func delete() async throws {
        let (fixture, fetcher) = try await loaded()
        await #expect(throws: CAMutationError.self) { try await fixture.handlers.delete(fetcher.items[1]) }
        let stored = try await fixture.stored()
        #expect(stored.map(\.id) == ["m1", "m2", "m3"])
        #expect(stored.map(\.caState) == [.normal, .normal, .normal])
        #expect(try await eventually { fetcher.ids == ["m1", "m2", "m3"] && fetcher.states.allSatisfy { $0 == .normal } })
    }

    @Test func theItemsOwnErrorReachesTheCaller() async throws {
        let (fixture, fetcher) = try await loaded()
        fixture.server.refusing = false
        let stranger = fixture.server.memo("ghost", "not on the server")
        // Inserted and confirmed, then deleted on the server behind the cache's back: the
        // update fails with the item's own `.noAffectedRows`.
        try await fixture.handlers.insert(stranger, action: .action(.append, viewId: "memos"))
        fixture.server.edit { $0.removeAll { $0.id == "ghost" } }
        var edited = stranger
        edited.text = "edited"
        await #expect {
            try await fixture.handlers.update(edited, action: .noAction)
        } throws: { error in
            guard case .noAffectedRows? = error as? CAMutationError else { return false }
            return (error as? CAMutationError)?.userFriendlyMessage == "Nothing was changed. Please check and try again."
        }
        #expect(try await eventually { fetcher.items.last?.text == "not on the server" })
    }
}

import CachedData
import CachedDataTestSupport
import Foundation
import Observation
import SelfDBRuntime
import Testing

@Suite("loading: states, empty views, single items, cancellation")
struct LoadingTests {
    @Test func firstLoadOfAnEmptyViewIsLoadingFirstThenLaterLoadsAreLoading() async throws {
        let fixture = try MemoFixture()
        let fetcher = fixture.fetcher()
        fixture.server.holding = true
        let setup = Task { try await fetcher.setup() }
        #expect(try await eventually { fetcher.state == .loadingFirst })
        #expect(fetcher.fetchedValue == .initial)
        fixture.server.holding = false
        try await setup.value
        #expect(fetcher.state == .idle)
        #expect(fetcher.initialFetched)

        fixture.server.holding = true
        let more = Task { try await fetcher.load() }
        #expect(try await eventually { fetcher.state == .loading })
        fixture.server.holding = false
        try await more.value
        #expect(fetcher.ids == ["m1", "m2", "m3"])

        // A second run with items cached: its first load is `.loading`, not `.loadingFirst`.
        let again = fixture.fetcher()
        fixture.server.holding = true
        let second = Task { try await again.setup() }
        #expect(try await eventually { again.state == .loading })
        #expect(again.ids == ["m1", "m2", "m3"])
        fixture.server.holding = false
        try await second.value
    }

    @Test func anEmptyFetchAllIsEmpty() async throws {
        let fixture = try MemoFixture(memos: 0)
        let fetcher = fixture.fetcher()
        try await fetcher.setup()
        #expect(fetcher.fetchedValue == .empty)
        #expect(!fetcher.hasNext)
    }

    @Test func allPagesFetchesEveryPage() async throws {
        let fixture = try MemoFixture(memos: 5)
        let fetcher = fixture.fetcher(allPages: true)
        try await fetcher.setup()
        #expect(fetcher.ids == ["m1", "m2", "m3", "m4", "m5"])
        #expect(fixture.server.fetches == 3)
    }

    @Test func fetchOnePicksItsItemOutOfThePages() async throws {
        let fixture = try MemoFixture(memos: 5)
        let one = fixture.one("m5")
        try await one.setup()
        #expect(one.item.text == "memo 5")
        #expect(fixture.server.fetches == 3)
        // Gone from the server: the cache drops it.
        fixture.server.edit { $0.removeAll { $0.id == "m5" } }
        try await one.reload()
        #expect(one.optionalItem == nil)
    }

    @Test func reloadCancelsALoadInFlight() async throws {
        let fixture = try MemoFixture()
        let fetcher = fixture.fetcher()
        try await fetcher.setup()
        fixture.server.holding = true
        let slow = Task { try await fetcher.load() }
        #expect(try await eventually { fetcher.state == .loading })
        fixture.server.edit { $0[0].text = "fresh" }
        let reload = Task { try await fetcher.reload() }
        do {
            try await slow.value
            Issue.record("the superseded load must end cancelled")
        } catch {
            let failure = try #require(error as? CAFetchError)
            #expect(failure.isCancellationError)
            #expect(!failure.userNotable)
        }
        fixture.server.holding = false
        try await reload.value
        #expect(fetcher.items.first?.text == "fresh")
        #expect(fetcher.state == .idle)
    }

    @Test func theValueStreamFollowsChanges() async throws {
        let fixture = try MemoFixture()
        let fetcher = fixture.fetcher()
        var values = fetcher.asyncFetchedValue.makeAsyncIterator()
        #expect(await values.next() == .initial)
        try await fetcher.setup()
        #expect(await values.next()?.items.map(\.id) == ["m1", "m2"])
    }

    @Test func aFetchThatThrowsItsOwnErrorIsCaught() async throws {
        let fixture = try MemoFixture()
        let fetcher = fixture.fetcher()
        try await fetcher.setup()
        fixture.server.failing = true
        do {
            try await fetcher.reload()
            Issue.record("a failing fetch must fail the load")
        } catch {
            guard case .caught(let underlying) = error else { throw error }
            #expect(underlying is MemoServer.Failure)
            #expect(error.userFriendlyMessage == "The memo service failed.")
        }
        #expect(fetcher.ids == ["m1", "m2"], "the cached items stay shown")
    }

    @Test func anUnknownServerIsUnreachable() async throws {
        let fixture = try MemoFixture()
        let lost = CAFetcher(.fetchAll(viewId: "lost", allPages: false), itemType: Memo.self, params: Memo.Params(server: "no such server"), cache: fixture.cache)
        do {
            try await lost.setup()
            Issue.record("an unreachable server must fail the load")
        } catch {
            guard case .offline = error else { throw error }
        }
        #expect(lost.fetchedValue == .initial)
    }
}

@Suite("a fetcher is observable")
struct ObservationTests {
    final class Flag: Sendable {
        let raised = Locked(false)
    }

    @Test func readingItemsTracksTheirChanges() async throws {
        let fixture = try MemoFixture()
        let fetcher = fixture.fetcher()
        let items = Flag()
        let hasNext = Flag()
        withObservationTracking {
            _ = fetcher.items
        } onChange: {
            items.raised.withLock { $0 = true }
        }
        withObservationTracking {
            _ = fetcher.hasNext
        } onChange: {
            hasNext.raised.withLock { $0 = true }
        }
        try await fetcher.setup()
        #expect(items.raised.withLock { $0 })
        #expect(hasNext.raised.withLock { $0 })

        let again = Flag()
        withObservationTracking {
            _ = fetcher.state
        } onChange: {
            again.raised.withLock { $0 = true }
        }
        fixture.server.edit { $0[0].text = "changed" }
        try await fetcher.reload()
        #expect(again.raised.withLock { $0 })
    }
}

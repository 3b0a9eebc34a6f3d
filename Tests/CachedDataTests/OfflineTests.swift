import CachedData
import CachedDataTestSupport
import Foundation
import Testing

@Suite("offline: cached reads, pending mutations, replay by itself")
struct OfflineTests {
    @Test func aRestartedAppReadsTheCacheOffline() async throws {
        let fixture = try MemoFixture()
        try await fixture.fetcher(allPages: true).setup()
        fixture.server.offline = true
        let (cache, _) = try fixture.reopened()
        let fetcher = fixture.fetcher(allPages: true, cache: cache)
        await #expect(throws: CAFetchError.self) { try await fetcher.setup() }
        #expect(fetcher.ids == ["m1", "m2", "m3"])
        #expect(fetcher.state == .idle)
        do {
            try await fetcher.reload()
            Issue.record("an offline reload must fail")
        } catch {
            guard case .offline = error else { throw error }
            #expect(error.userFriendlyMessage == "You are offline. Showing what is saved on this device.")
            #expect(!error.isCancellationError)
        }
        #expect(fetcher.ids == ["m1", "m2", "m3"])
    }

    @Test func cacheOnlySetupMakesNoNetworkCall() async throws {
        let fixture = try MemoFixture()
        try await fixture.fetcher().setup()
        let calls = fixture.server.fetches
        let cached = fixture.fetcher()
        try await cached.setup(cacheOnly: true)
        try await cached.load()
        try await cached.reload()
        #expect(cached.ids == ["m1", "m2"])
        #expect(fixture.server.fetches == calls)

        let nothingCached = fixture.fetcher("never-fetched")
        try await nothingCached.setup(cacheOnly: true)
        #expect(nothingCached.fetchedValue == .empty)
        #expect(fixture.server.fetches == calls)
    }

    @Test func anUnreachableServerKeepsMutationsPendingUntilTheNextFetch() async throws {
        let fixture = try MemoFixture()
        let fetcher = fixture.fetcher(allPages: true)
        try await fetcher.setup()
        fixture.server.offline = true

        try await fixture.handlers.insert(fixture.server.memo("new", "offline"), action: .action(.prepend, viewId: "memos"))
        var edited = try #require(fetcher.items.first { $0.id == "m2" })
        edited.text = "edited offline"
        try await fixture.handlers.update(edited, action: .action(.refresh))
        try await fixture.handlers.delete(try #require(fetcher.items.first { $0.id == "m3" }))

        #expect(try fixture.cache.pendingMutationCount() == 3)
        #expect(try await eventually { fetcher.states == [.inserting, .normal, .updating, .deleting] })
        #expect(fetcher.ids == ["new", "m1", "m2", "m3"], "a deleted item stays listed until the server confirms")
        #expect(fetcher.items[2].text == "edited offline")
        #expect(fixture.server.log.isEmpty)

        // A refresh that fails changes nothing; one that reaches the server sends the queue.
        await #expect(throws: CAFetchError.self) { try await fetcher.reload() }
        fixture.server.offline = false
        try await fetcher.reload()
        #expect(try await eventually { try fixture.cache.pendingMutationCount() == 0 })
        #expect(fixture.server.log == ["insert:new", "update:m2", "delete:m3"])
        try await fetcher.reload()
        #expect(try await eventually { fetcher.ids == ["new", "m1", "m2"] && fetcher.states.allSatisfy { $0 == .normal } })
        #expect(fetcher.items[2].text == "edited offline")
    }

    @Test func theRetryTimerReplaysWithoutAnyCall() async throws {
        let fixture = try MemoFixture(retry: .milliseconds(20))
        let fetcher = fixture.fetcher()
        try await fetcher.setup()
        fixture.server.offline = true
        try await fixture.handlers.insert(fixture.server.memo("late", "sent by the timer"), action: .action(.append, viewId: "memos"))
        #expect(try fixture.cache.pendingMutationCount() == 1)
        fixture.server.offline = false
        #expect(try await eventually { try fixture.cache.pendingMutationCount() == 0 })
        #expect(fixture.server.log == ["insert:late"])
        #expect(try await eventually { fetcher.items.last?.caState == .normal })
    }

    @Test func aRefreshNeverOverwritesAPendingItem() async throws {
        let fixture = try MemoFixture()
        let fetcher = fixture.fetcher()
        try await fetcher.setup()
        // Writes time out while reads work: the update stays pending through a refresh.
        fixture.server.writesOffline = true
        var edited = try #require(fetcher.items.first)
        edited.text = "mine"
        try await fixture.handlers.update(edited, action: .noAction)
        fixture.server.edit { $0[0].text = "theirs" }
        try await fetcher.reload()
        #expect(fetcher.items.first?.text == "mine")
        #expect(fetcher.items.first?.caState == .updating)

        fixture.server.writesOffline = false
        try await fetcher.reload()
        #expect(try await eventually { fixture.server.memos.first?.text == "mine" })
        #expect(fixture.server.log == ["update:m1"])
    }
}

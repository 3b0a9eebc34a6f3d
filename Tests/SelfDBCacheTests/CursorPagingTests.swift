import Foundation
import SelfDB
import SelfDBCache
import SelfDBRuntime
import Testing

/// Views paged by an opaque cursor: here a keyset cursor ("after rank N") over the server's
/// rows sorted by rank, read through the generated client.
@Suite("paging a view by cursor")
@MainActor
struct CursorPagingTests {
    /// Rows after the cursor's rank, `pageSize` at a time; the cursor is the last rank sent.
    static func keysetLoader(_ selfdb: SelfDB, calls: Locked<[String?]>) -> @Sendable (String?, Int) async throws -> CursorPage<Chore> {
        { cursor, pageSize in
            calls.withLock { $0.append(cursor) }
            let after = cursor.flatMap { Int($0.dropFirst("rank:".count)) } ?? Int.min
            let sorted = try await selfdb.tables.data.query(Chore.self).sort(.rank, .asc).pageSize(1000).execute()
            let rest = sorted.filter { ($0.rank ?? Int.min) > after }
            let page = Array(rest.prefix(pageSize))
            let next = rest.count > pageSize ? page.last.flatMap { $0.rank }.map { "rank:\($0)" } : nil
            return CursorPage(rows: page, next: next)
        }
    }

    @Test func cursorPagesContinueAfterInsertsAndAcrossARestart() async throws {
        try await CacheFixture.run { fixture in
            let (selfdb, user, _) = try await fixture.seeded(7)
            let calls = Locked<[String?]>([])
            let path = fixture.cachePath()
            let cache = try SelfDBCache(selfdb: selfdb, path: path)
            let fetcher = cache.fetcher(Chore.self, .cursor(view: "keyset", pageSize: 3, fetch: Self.keysetLoader(selfdb, calls: calls)))
            try await fetcher.setup()
            #expect(fetcher.rows.compactMap(\.rank) == [1, 2, 3])
            #expect(fetcher.hasNext)

            // A row before the cursor does not shift anything; one after it shows up in order.
            try await selfdb.tables.data.insert(Chore(id: UUID(), title: "early", rank: -5, userId: user.id))
            try await selfdb.tables.data.insert(Chore(id: UUID(), title: "late", rank: 8, userId: user.id))
            try await fetcher.loadMore()
            #expect(fetcher.rows.compactMap(\.rank) == [1, 2, 3, 4, 5, 6])

            // A new process: the cursor was kept with the view.
            let reopened = try SelfDBCache(selfdb: selfdb, path: path)
            let resumed = reopened.fetcher(Chore.self, .cursor(view: "keyset", pageSize: 3, fetch: Self.keysetLoader(selfdb, calls: calls)))
            try await resumed.setup(cacheOnly: true)
            #expect(resumed.rows.compactMap(\.rank) == [1, 2, 3, 4, 5, 6])
            #expect(resumed.hasNext)
            let online = reopened.fetcher(Chore.self, .cursor(view: "keyset", pageSize: 3, fetch: Self.keysetLoader(selfdb, calls: calls)))
            try await online.setup()  // online, setup starts over from the first page
            try await online.loadMore()
            try await online.loadMore()
            #expect(!online.hasNext)
            #expect(online.rows.compactMap(\.rank) == [-5, 1, 2, 3, 4, 5, 6, 7, 8], "every row once, in order")
            #expect(calls.current == [nil, "rank:3", nil, "rank:2", "rank:5"])
        }
    }

    @Test func aFailingLoaderIsATypedErrorAndKeepsWhatIsCached() async throws {
        try await CacheFixture.run { fixture in
            let (selfdb, _, _) = try await fixture.seeded(2)
            let failing = Locked(false)
            let calls = Locked<[String?]>([])
            let loader = Self.keysetLoader(selfdb, calls: calls)
            let cache = try SelfDBCache(selfdb: selfdb, path: fixture.cachePath())
            let fetcher = cache.fetcher(
                Chore.self,
                .cursor(
                    view: "flaky",
                    pageSize: 1,
                    fetch: { cursor, size in
                        if failing.current { throw SelfDBError.serviceUnavailable(retryAfter: nil, "down for maintenance") }
                        return try await loader(cursor, size)
                    }
                )
            )
            try await fetcher.setup()
            #expect(fetcher.rows.count == 1)
            failing.withLock { $0 = true }
            await #expect(throws: CacheError.self) { try await fetcher.loadMore() }
            #expect(fetcher.rows.count == 1 && fetcher.lastError != nil)
            #expect(fetcher.lastError?.userFriendlyMessage.isEmpty == false)

            let bad = cache.fetcher(Chore.self, .cursor(view: "", pageSize: 1, fetch: loader))
            await #expect(throws: CacheError.self) { try await bad.setup() }
        }
    }
}

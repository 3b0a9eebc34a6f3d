import Foundation
import SelfDB
import SelfDBCache
import Testing

@Suite("server data never overwrites a pending local change")
@MainActor
struct RefreshTests {
    @Test func refreshDuringPendingUpdateKeepsTheLocalRow() async throws {
        try await CacheFixture.run { fixture in
            let (selfdb, _, seeded) = try await fixture.seeded(2)
            let cache = try SelfDBCache(selfdb: selfdb, path: fixture.cachePath())
            let fetcher = cache.fetcher(Chore.self, .all(view: "all", query: Chore.query().sort(.rank, .asc)))
            try await fetcher.setup()
            let table = try await selfdb.tables.list(search: Chore.tableName).first { $0.name == Chore.tableName }
            let tableId = try #require(table?.id)

            // The server is overloaded for this PATCH: the update stays pending.
            fixture.emulator.injectFault(.serviceUnavailable(retryAfter: nil), method: "PATCH", path: "/tables/\(tableId.uuidString.lowercased())/data/\(seeded[0].id.uuidString)")
            var edited = seeded[0]
            edited.title = "edited locally"
            #expect(try await cache.update(edited) == .pending)

            // A refresh and a realtime event both carry the old row.
            try await fetcher.reload()
            try cache.apply(change: .update(seeded[0]))
            #expect(fetcher.items.first?.row.title == "edited locally")
            #expect(fetcher.items.first?.state == .updating)

            let report = await cache.synchronize()
            #expect(report.sent == 1)
            try await eventually("the confirmed state") { fetcher.items.first?.state == .normal }
            #expect(try await CacheFixture.serverRows(selfdb).first?.title == "edited locally")
        }
    }

    @Test func editsOfAQueuedInsertAreReplayedInOrder() async throws {
        try await CacheFixture.run { fixture in
            let (selfdb, user, _) = try await fixture.seeded(1)
            let cache = try SelfDBCache(selfdb: selfdb, path: fixture.cachePath())
            await fixture.stopServer()
            var draft = Chore(id: UUID(), title: "draft", rank: 2, userId: user.id)
            #expect(try await cache.insert(draft, into: "all", at: .append) == .pending)
            draft.title = "final"
            #expect(try await cache.update(draft) == .pending)
            #expect(try cache.item(Chore.self, id: draft.id.uuidString)?.row.title == "final")
            try await fixture.restartServer()
            let report = await cache.synchronize()
            #expect(report.sent == 2)
            #expect(try await CacheFixture.serverRows(selfdb).filter { $0.id == draft.id }.map(\.title) == ["final"])
            #expect(try cache.item(Chore.self, id: draft.id.uuidString)?.state == .normal)
        }
    }
}

import Foundation
import SelfDB
import SelfDBCache
import Testing

/// Generated models that are not table models — here SelfDB's buckets — cached through the
/// endpoints of the generated client. SelfDB's spec declares `BucketResponse` (and users,
/// tables, files) `CacheableModel`; being `Identifiable`, it needs nothing more.

@Suite("caching generated models that are not table models")
@MainActor
struct ModelCacheTests {
    /// The buckets view, by skip and limit as the endpoint pages.
    static func bucketsView(_ selfdb: SelfDB, pageSize: Int = 2) -> FetchStrategy<BucketResponse> {
        .pages(view: "buckets", pageSize: pageSize) { page, size in
            try await selfdb.storage.buckets.list(skip: (page - 1) * size, limit: size, sortBy: .name, sortOrder: .asc)
        }
    }

    static func mutations(_ selfdb: SelfDB) -> CacheMutations<BucketResponse> {
        CacheMutations(
            insert: { bucket in
                try await selfdb.storage.buckets.create(payload: BucketCreate(name: bucket.name, public: bucket.public, description: bucket.description))
            },
            update: { bucket in
                try await selfdb.storage.buckets.update(bucket.id, payload: BucketUpdate(public: bucket.public, description: bucket.description))
            },
            delete: { bucket in try await selfdb.storage.buckets.delete(bucket.id) }
        )
    }

    /// Buckets named `<prefix>-a`, `<prefix>-b`... (names are global on the server).
    static func makeBuckets(_ selfdb: SelfDB, prefix: String, count: Int) async throws -> [BucketResponse] {
        var made: [BucketResponse] = []
        for letter in "abcdefgh".prefix(count) {
            made.append(try await selfdb.storage.buckets.create(payload: BucketCreate(name: "\(prefix)-\(letter)")))
        }
        return made
    }

    static func prefix() -> String { "b\(UUID().uuidString.prefix(8).lowercased())" }

    @Test func pagesOfAModelFillAViewAndAShortPageEndsIt() async throws {
        try await CacheFixture.run { fixture in
            let (selfdb, _) = try await fixture.newUser()
            let prefix = Self.prefix()
            let buckets = try await Self.makeBuckets(selfdb, prefix: prefix, count: 3)
            let cache = try SelfDBCache(selfdb: selfdb, path: fixture.cachePath())
            let fetcher = cache.fetcher(BucketResponse.self, Self.bucketsView(selfdb))
            try await fetcher.setup()
            #expect(fetcher.rows == Array(buckets.prefix(2)))
            #expect(fetcher.hasNext)
            try await fetcher.loadMore()
            #expect(fetcher.rows == buckets)
            #expect(!fetcher.hasNext, "a page shorter than the page size is the last")
            #expect(fetcher.items.map(\.id) == buckets.map(\.id.uuidString))

            // Keyed by type: a table row with the same key would not collide.
            #expect(BucketResponse.cacheTypeName == "model:BucketResponse")
            #expect(try cache.item(BucketResponse.self, id: buckets[1].id.uuidString)?.row == buckets[1])

            // One item through its endpoint; gone on the server → gone from the cache.
            let one = cache.fetcher(
                BucketResponse.self,
                .one(id: buckets[0].cacheKey) { _ in
                    do { return try await selfdb.storage.buckets.get(buckets[0].id) } catch SelfDBError.notFound { return nil }
                }
            )
            try await one.setup()
            #expect(one.item?.row == buckets[0])
            try await selfdb.storage.buckets.delete(buckets[0].id)
            try await one.reload()
            #expect(one.value == .empty)
            try await eventually("the deleted bucket leaves the view") { fetcher.rows == Array(buckets.dropFirst()) }
        }
    }

    @Test func offlineInsertAndUpdateTakeTheServersKeyWhenSent() async throws {
        try await CacheFixture.run { fixture in
            let (selfdb, user) = try await fixture.newUser()
            let prefix = Self.prefix()
            let existing = try await Self.makeBuckets(selfdb, prefix: prefix, count: 1)
            let cache = try SelfDBCache(selfdb: selfdb, path: fixture.cachePath())
            await cache.register(BucketResponse.self, mutations: Self.mutations(selfdb))
            let fetcher = cache.fetcher(BucketResponse.self, Self.bucketsView(selfdb, pageSize: 10))
            try await fetcher.setup()
            await fixture.stopServer()

            // The server assigns bucket ids: the local one is provisional.
            let local = BucketResponse(id: UUID(), name: "\(prefix)-new", public: false, ownerId: user.id, createdAt: Date())
            #expect(try await cache.insert(local, into: "buckets", at: .append) == .pending)
            var edited = local
            edited.description = "written offline"
            #expect(try await cache.update(edited) == .pending)
            try await eventually("the optimistic bucket") {
                fetcher.items.map(\.state) == [.normal, .updating] && fetcher.rows.last?.description == "written offline"
            }

            try await fixture.restartServer()
            let report = await cache.synchronize()
            #expect(report.sent == 2 && report.rejected.isEmpty && report.remaining == 0)
            let server = try await selfdb.storage.buckets.list(search: prefix, sortBy: .name, sortOrder: .asc)
            #expect(server.map(\.name) == ["\(prefix)-a", "\(prefix)-new"])
            let stored = try #require(server.last)
            #expect(stored.id != local.id)
            #expect(stored.description == "written offline", "the update was sent with the server's id")

            try await eventually("the view shows the server's bucket under its key") {
                fetcher.items.map(\.id) == [existing[0].id.uuidString, stored.id.uuidString]
                    && fetcher.items.allSatisfy { $0.state == .normal }
            }
            #expect(fetcher.rows.last?.id == stored.id)
            #expect(try cache.item(BucketResponse.self, id: local.id.uuidString) == nil)
            try await fetcher.reload()
            #expect(fetcher.rows.map(\.id) == server.map(\.id), "no duplicate after a refresh")
        }
    }

    @Test func aRefusedModelMutationRollsBackAndAnUnregisteredOneIsRefusedUpFront() async throws {
        try await CacheFixture.run { fixture in
            let (selfdb, _) = try await fixture.newUser()
            let buckets = try await Self.makeBuckets(selfdb, prefix: Self.prefix(), count: 2)
            let cache = try SelfDBCache(selfdb: selfdb, path: fixture.cachePath())
            let fetcher = cache.fetcher(BucketResponse.self, Self.bucketsView(selfdb, pageSize: 10))
            try await fetcher.setup()
            let before = fetcher.items

            // Nothing registered for the type: refused before the cache changes.
            var changed = buckets[1]
            changed.description = "never sent"
            await #expect(throws: CacheError.self) { try await cache.update(changed) }
            #expect(try cache.pendingMutationCount() == 0)
            #expect(try cache.items(BucketResponse.self, view: "buckets") == before)

            // Registered without delete: a delete is refused up front too.
            await cache.register(BucketResponse.self, mutations: CacheMutations(update: Self.mutations(selfdb).update))
            await #expect(throws: CacheError.self) { try await cache.delete(buckets[0]) }

            // Deleted on the server meanwhile: the update is refused and undone exactly.
            try await selfdb.storage.buckets.delete(buckets[1].id)
            do {
                try await cache.update(changed)
                Issue.record("the update of a deleted bucket was accepted")
            } catch let error as CacheError {
                guard case .rejected(.notFound) = error else { throw error }
            }
            #expect(try cache.items(BucketResponse.self, view: "buckets") == before)
        }
    }
}

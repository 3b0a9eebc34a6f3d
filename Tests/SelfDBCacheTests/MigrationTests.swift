import Foundation
import SelfDB
import SelfDBCache
import SelfDBStore
import Testing

/// Cache files written by an earlier version of the cache keep their items, views and
/// pending mutations when a newer version opens them.
@Suite("opening a cache file written by an earlier version")
@MainActor
struct MigrationTests {
    /// Cursor paging added `cache_views.next_cursor`. A file from before has everything else
    /// as it is now, so dropping that column makes one (SQLite ≥ 3.35 drops columns).
    static func downgradeToBeforeCursorPaging(_ path: String) throws {
        let database = try SQLite(path)
        try database.executeScript("ALTER TABLE cache_views DROP COLUMN next_cursor")
        let columns = try database.execute("SELECT name FROM pragma_table_info('cache_views')").compactMap { $0[0] as String? }
        #expect(!columns.contains("next_cursor"))
    }

    @Test func aFileFromBeforeCursorPagingKeepsItsViewsAndPendingMutations() async throws {
        try await CacheFixture.run { fixture in
            let (selfdb, _, seeded) = try await fixture.seeded(3)
            let path = fixture.cachePath()
            let strategy = FetchStrategy<Chore>.all(view: "by-rank", query: Chore.query().sort(.rank, .asc))
            do {
                let cache = try SelfDBCache(selfdb: selfdb, path: path)
                let fetcher = cache.fetcher(Chore.self, strategy)
                try await fetcher.setup()
                await fixture.stopServer()
                var renamed = seeded[0]
                renamed.title = "renamed by the old version"
                #expect(try await cache.update(renamed) == .pending)
            }
            try Self.downgradeToBeforeCursorPaging(path)

            let cache = try SelfDBCache(selfdb: selfdb, path: path)
            let offline = cache.fetcher(Chore.self, strategy)
            try await offline.setup(cacheOnly: true)
            #expect(offline.rows.map(\.title) == ["renamed by the old version", "chore 2", "chore 3"])
            #expect(offline.items.map(\.state) == [.updating, .normal, .normal])
            #expect(try cache.pendingMutationCount() == 1)

            try await fixture.restartServer()
            let report = await cache.synchronize()
            #expect(report.sent == 1 && report.remaining == 0)
            #expect(try await CacheFixture.serverRows(selfdb).map(\.title) == ["renamed by the old version", "chore 2", "chore 3"])

            // The migrated file pages by cursor like a new one, across a reopen.
            let cursorStrategy = FetchStrategy<Chore>.cursor(view: "cursor", pageSize: 2) { cursor, size in
                let rows = try await CacheFixture.serverRows(selfdb)
                let start = cursor.flatMap(Int.init) ?? 0
                let end = min(start + size, rows.count)
                return CursorPage(rows: Array(rows[start..<end]), next: end < rows.count ? String(end) : nil)
            }
            let paged = cache.fetcher(Chore.self, cursorStrategy)
            try await paged.setup()
            #expect(paged.rows.count == 2 && paged.hasNext)
            let reopened = try SelfDBCache(selfdb: selfdb, path: path).fetcher(Chore.self, cursorStrategy)
            try await reopened.setup(cacheOnly: true)
            #expect(reopened.hasNext)
        }
    }

    @Test func itemsWithISODatesFromEarlierVersionsStillRead() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("legacy-\(UUID().uuidString).sqlite").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        let selfdb = SelfDB(baseURL: URL(string: "http://127.0.0.1:9")!, apiKey: "unused")
        _ = try SelfDBCache(selfdb: selfdb, path: path)  // creates the schema
        let id = UUID()
        let legacy = #"{"created_at":"2026-01-02T03:04:05.123Z","file_count":0,"id":"\#(id.uuidString)","name":"old","public":true,"total_size":0}"#
        let database = try SQLite(path)
        try database.execute(
            "INSERT INTO cache_items (type_name, item_id, json, state, updated_at) VALUES (?, ?, ?, 'normal', 0)",
            BucketResponse.cacheTypeName,
            id.uuidString,
            legacy
        )
        try database.execute(
            "INSERT INTO cache_items (type_name, item_id, json, state, updated_at) VALUES (?, 'broken', '{\"id\":1}', 'normal', 0)",
            BucketResponse.cacheTypeName
        )
        try database.execute("INSERT INTO cache_view_items (type_name, view_id, item_id, position) VALUES (?, 'v', ?, 0)", BucketResponse.cacheTypeName, id.uuidString)

        let cache = try SelfDBCache(selfdb: selfdb, path: path)
        let items = try cache.items(BucketResponse.self, view: "v")
        #expect(items.map(\.row.name) == ["old"])
        #expect(items.first?.row.createdAt == TimestampParser.parse("2026-01-02T03:04:05.123Z"))
        #expect(throws: CacheError.self) { try cache.item(BucketResponse.self, id: "broken") }
    }

    @Test func aFileThatIsNotACacheIsATypedError() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("not-a-cache-\(UUID().uuidString).sqlite").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        try Data("this is not a database, just some text that is long enough".utf8).write(to: URL(fileURLWithPath: path))
        let selfdb = SelfDB(baseURL: URL(string: "http://127.0.0.1:9")!, apiKey: "unused")
        #expect(throws: CacheError.self) { try SelfDBCache(selfdb: selfdb, path: path) }
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)).count > 0, "the file is left as it was")
    }
}

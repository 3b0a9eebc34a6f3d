import CachedData
import CachedDataTestSupport
import Foundation
import Testing

@Suite("cross-view refresh")
struct RefreshTests {
    /// Two loaded views of the same memos; then the server changes m1 behind their backs.
    func twoViews() async throws -> (MemoFixture, CAFetcher<Memo>, CAFetcher<Memo>) {
        let fixture = try MemoFixture()
        let a = fixture.fetcher("a", allPages: true)
        let b = fixture.fetcher("b", allPages: true)
        try await a.setup()
        try await b.setup()
        fixture.server.edit { $0.append(fixture.server.memo("m4", "added elsewhere")) }
        return (fixture, a, b)
    }

    @Test func refreshWithAViewReloadsThatViewOnly() async throws {
        let (fixture, a, b) = try await twoViews()
        let fetches = fixture.server.fetches
        try await fixture.handlers.update(a.items[0], action: .action(.refresh, viewId: "a"))
        #expect(try await eventually { a.ids == ["m1", "m2", "m3", "m4"] })
        // Every fetch after the update's is a's (two pages): b was not asked.
        #expect(try await eventually { fixture.server.fetches == fetches + 2 })
        #expect(b.ids == ["m1", "m2", "m3"])
    }

    @Test func refreshWithoutAViewReloadsEveryView() async throws {
        let (fixture, a, b) = try await twoViews()
        try await fixture.handlers.update(a.items[0], action: .action(.refresh))
        #expect(try await eventually { a.ids == ["m1", "m2", "m3", "m4"] && b.ids == ["m1", "m2", "m3", "m4"] })
    }

    @Test func reloadForTypeStartsTheReloadAndReturns() async throws {
        let (fixture, a, b) = try await twoViews()
        fixture.handlers.reload(forType: Memo.self, viewId: "b")
        #expect(try await eventually { b.ids == ["m1", "m2", "m3", "m4"] })
        #expect(a.ids == ["m1", "m2", "m3"])
        fixture.handlers.reload(forType: Memo.self)
        #expect(try await eventually { a.ids == ["m1", "m2", "m3", "m4"] })
    }

    @Test func aChangeInOneViewShowsInEveryViewOfTheItem() async throws {
        let (fixture, a, b) = try await twoViews()
        let detail = fixture.one("m2")
        try await detail.setup()
        var edited = a.items[1]
        edited.text = "seen everywhere"
        try await fixture.handlers.update(edited, action: .noAction)
        #expect(try await eventually { b.items[1].text == "seen everywhere" && detail.item.text == "seen everywhere" })
    }
}

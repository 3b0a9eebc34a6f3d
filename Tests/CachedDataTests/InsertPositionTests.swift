import CachedData
import CachedDataTestSupport
import Foundation
import Testing

@Suite("inserts go where the action says")
struct InsertPositionTests {
    /// Inserts one memo with `action` into a loaded view of m1, m2, m3 and returns the view's ids.
    func insert(_ action: CAInsertViewAction) async throws -> [String] {
        let fixture = try MemoFixture()
        let fetcher = fixture.fetcher(allPages: true)
        try await fetcher.setup()
        try await fixture.handlers.insert(fixture.server.memo("x", "inserted"), action: action)
        #expect(fixture.server.log == ["insert:x"])
        // Settled: the optimistic row was confirmed (or never listed).
        _ = try await eventually { fetcher.states.allSatisfy { $0 == .normal } && (fetcher.ids.contains("x") || action.kind == .noAction) }
        return fetcher.ids
    }

    @Test func prepend() async throws {
        #expect(try await insert(.action(.prepend, viewId: "memos")) == ["x", "m1", "m2", "m3"])
    }

    @Test func append() async throws {
        #expect(try await insert(.action(.append, viewId: "memos")) == ["m1", "m2", "m3", "x"])
    }

    @Test func insertBefore() async throws {
        #expect(try await insert(.action(.insertBefore(id: "m2"), viewId: "memos")) == ["m1", "x", "m2", "m3"])
        #expect(try await insert(.action(.insertBefore(id: "m1"), viewId: "memos")) == ["x", "m1", "m2", "m3"])
    }

    @Test func insertAfter() async throws {
        #expect(try await insert(.action(.insertAfter(id: "m2"), viewId: "memos")) == ["m1", "m2", "x", "m3"])
        #expect(try await insert(.action(.insertAfter(id: "m3"), viewId: "memos")) == ["m1", "m2", "m3", "x"])
    }

    @Test func anAnchorNotInTheViewAppends() async throws {
        #expect(try await insert(.action(.insertAfter(id: "nowhere"), viewId: "memos")) == ["m1", "m2", "m3", "x"])
    }

    @Test func noActionListsItNowhere() async throws {
        #expect(try await insert(.action(.noAction, viewId: "memos")) == ["m1", "m2", "m3"])
        #expect(try await insert(.noAction) == ["m1", "m2", "m3"])
    }

    @Test func withoutAViewItGoesIntoEveryLiveList() async throws {
        let fixture = try MemoFixture()
        let first = fixture.fetcher("first", allPages: true)
        let second = fixture.fetcher("second", pageSize: 1)
        let detail = fixture.one("m1")
        try await first.setup()
        try await second.setup()
        try await detail.setup()
        fixture.server.offline = true  // keep it optimistic: nothing refetches over it
        try await fixture.handlers.insert(fixture.server.memo("x", "everywhere"), action: .action(.append))
        #expect(try await eventually { first.ids == ["m1", "m2", "m3", "x"] && second.ids == ["m1", "x"] })
        #expect(detail.optionalItem?.id == "m1")
    }

    @Test func aBadViewIdIsRefusedBeforeTheCacheChanges() async throws {
        let fixture = try MemoFixture()
        await #expect(throws: CAMutationError.self) {
            try await fixture.handlers.insert(fixture.server.memo("x", "bad"), action: .action(.prepend, viewId: "#reserved"))
        }
        #expect(try fixture.cache.pendingMutationCount() == 0)
        #expect(fixture.server.log.isEmpty)
        let bad = fixture.fetcher("")
        do {
            try await bad.setup()
            Issue.record("an empty view id must be refused")
        } catch {
            guard case .invalidArgument = error else { throw error }
        }
    }
}

import CachedData
import CachedDataTestSupport
import Foundation
import SelfDBTestSupport
import Testing

// The helper process needs `posix_spawn` (HelperProcess): macOS and Linux only.
#if os(macOS) || os(Linux)
@Suite("pending mutations survive a killed process and are sent once")
struct CrashRecoveryTests {
    @Test func mutationsPendingAtSIGKILLAreReplayedOnceAfterRestart() async throws {
        let helper = try #require(TestExecutables.url(named: "cacheddata-crash-helper"), "cacheddata-crash-helper is not built next to the tests")
        let fixture = try MemoFixture()
        let path = fixture.folder.appendingPathComponent("cache.sqlite").path
        // The first run, online, cached m1…m3.
        try await fixture.fetcher(allPages: true).setup()

        // The second run, offline, inserts, updates and deletes, and is killed.
        let process = try HelperProcess(helper, arguments: [path, fixture.server.name, "fresh", "m2", "m3"])
        let printed = await TestExecutables.firstOutput(of: process.output).trimmingCharacters(in: .whitespacesAndNewlines)
        process.send(SIGKILL)
        #expect(printed == "PENDING 3")
        #expect(process.waitUntilExit() == .signal(SIGKILL))
        #expect(fixture.server.log.isEmpty)

        // The third run, online again: the queue is there, and goes once the server answers.
        let (cache, _) = try fixture.reopened()
        #expect(try cache.pendingMutationCount() == 3)
        let fetcher = fixture.fetcher(allPages: true, cache: cache)
        try await fetcher.setup(cacheOnly: true)
        #expect(fetcher.ids == ["fresh", "m1", "m2", "m3"])
        #expect(fetcher.states == [.inserting, .normal, .updating, .deleting])
        try await fetcher.reload()
        #expect(try await eventually { try cache.pendingMutationCount() == 0 })
        #expect(fixture.server.log == ["insert:fresh", "update:m2", "delete:m3"])
        try await fetcher.reload()
        #expect(fetcher.ids == ["fresh", "m1", "m2"])
        #expect(fetcher.items[2].text == "edited offline")

        // A fourth run has nothing left to send.
        let (last, _) = try fixture.reopened()
        #expect(try last.pendingMutationCount() == 0)
        _ = await last.replayPendingMutations()
        #expect(fixture.server.log.count == 3)
    }
}
#endif

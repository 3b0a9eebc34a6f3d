import FlakyServerSupport
import Foundation
import SelfDB
import SelfDBCache
import SelfDBTestSupport
import Testing

/// The cache's writes and loads through the fault proxy, on the emulator and (when
/// `SELFDB_REAL_URL` is set) a real SelfDB: every write applied exactly once, none undone,
/// none stuck, and the cache equal to what the server holds, read directly.
@Suite("the cache on a flaky network", .serialized)
@MainActor
struct FlakyNetworkTests {
    static func chores(_ count: Int, of user: UserRead, _ prefix: String = "chore") -> [Chore] {
        (1...count).map { Chore(id: UUID(), title: "\(prefix) \($0)", rank: $0, userId: user.id) }
    }

    /// Quick retries: the tests lose many answers.
    static let retry = RetryPolicy(maxAttempts: 3, baseDelay: 0.01)

    static func cachePath() -> String {
        FileManager.default.temporaryDirectory.appendingPathComponent("flaky-cache-\(UUID().uuidString).sqlite").path
    }

    /// Synchronizes until nothing is queued (each drain stops at the first failure it cannot
    /// settle), at most `limit` times.
    static func drainAll(_ cache: SelfDBCache, limit: Int = 60) async -> (reports: [SyncReport], remaining: Int) {
        var reports: [SyncReport] = []
        for _ in 0..<limit {
            let report = await cache.synchronize()
            reports.append(report)
            if report.remaining == 0 { break }
        }
        return (reports, reports.last?.remaining ?? -1)
    }

    @Test(arguments: Backend.all)
    func insertsQueuedOfflineLandOnceEachThroughLostAnswers(_ backend: Backend) async throws {
        try await FlakyServer.run(backend) { server in
            try await server.prepareTable(Chore.self)
            let (flaky, direct, user) = try await server.newUser(retry: Self.retry)
            let cache = try SelfDBCache(selfdb: flaky, path: Self.cachePath())
            let strategy = FetchStrategy<Chore>.all(view: "mine", query: Chore.query().search("flaky-\(user.id.uuidString.prefix(8))"), pageSize: 100)
            // The table id is resolved before the network goes.
            _ = try await flaky.tables.data.query(Chore.self).pageSize(1).execute()

            server.proxy.goOffline()
            let rows = Self.chores(60, of: user, "flaky-\(user.id.uuidString.prefix(8))")
            for row in rows {
                #expect(try await cache.insert(row, into: "mine", at: .append) == .pending)
            }
            try server.proxy.goOnline()
            server.proxy.add(FaultRule(.loseAnswer, method: "POST", pathContains: "/data", trigger: .probability(0.3)))
            // And, now and then, a reset before the request, or an answer cut in half.
            server.proxy.add(FaultRule(.resetBeforeRequest, method: "POST", pathContains: "/data", trigger: .probability(0.05)))
            server.proxy.add(FaultRule(.cutAnswer(fraction: 0.5), method: "POST", pathContains: "/data", trigger: .probability(0.05)))
            let (reports, remaining) = await Self.drainAll(cache)
            #expect(remaining == 0)
            #expect(reports.allSatisfy { $0.rejected.isEmpty })
            #expect(server.proxy.faultsApplied >= 10, "the proxy lost \(server.proxy.faultsApplied) answers")

            let held = try await FlakyServer.occurrences(of: Set(rows.map(\.id)), in: Chore.self, key: \.id, reading: direct)
            #expect(held.count == 60)
            #expect(held.values.allSatisfy { $0 == 1 }, "ids held twice: \(held.filter { $0.value > 1 }.count)")
            let cached = try cache.items(Chore.self, view: "mine")
            #expect(Set(cached.map(\.row.id)) == Set(rows.map(\.id)))
            #expect(cached.allSatisfy { $0.state == .normal })
            let feed = cache.fetcher(Chore.self, strategy)
            try await feed.setup()
            #expect(Set(feed.rows.map(\.id)) == Set(rows.map(\.id)))
        }
    }

    @Test(arguments: Backend.all)
    func anInsertWhoseAnswerIsLostOnAKeptAliveConnectionIsSettledByLooking(_ backend: Backend) async throws {
        try await FlakyServer.run(backend) { server in
            try await server.prepareTable(Chore.self)
            let (flaky, direct, user) = try await server.newUser(retry: Self.retry)
            let cache = try SelfDBCache(selfdb: flaky, path: Self.cachePath())
            _ = try await flaky.tables.data.query(Chore.self).pageSize(1).execute()
            server.proxy.add(FaultRule(.loseAnswer, method: "POST", pathContains: "/data", connection: .reused))
            let row = Self.chores(1, of: user)[0]
            let outcome = try await cache.insert(row, into: "mine")
            #expect(outcome.isConfirmed)
            // Sent once, looked for (found), never sent again.
            #expect(server.proxy.requests("POST", contains: "/data").count == 1)
            #expect(server.proxy.requests("PATCH", contains: "/data").count == 1)
            let held = try await FlakyServer.occurrences(of: [row.id], in: Chore.self, key: \.id, reading: direct)
            #expect(held[row.id] == 1)
            #expect(try cache.pendingMutationCount() == 0)
        }
    }

    @Test(arguments: Backend.all)
    func deletesWhoseAnswersAreLostAreConfirmedNeverRolledBack(_ backend: Backend) async throws {
        try await FlakyServer.run(backend) { server in
            try await server.prepareTable(Chore.self)
            let (flaky, direct, user) = try await server.newUser(retry: Self.retry)
            var rows: [Chore] = []
            for row in Self.chores(15, of: user) { rows.append(try await direct.tables.data.insert(row)) }
            let cache = try SelfDBCache(selfdb: flaky, path: Self.cachePath())
            try cache.savePage(rows, into: "mine")
            server.proxy.add(FaultRule(.loseAnswer, method: "DELETE", pathContains: "/data", trigger: .probability(0.3)))
            for row in rows {
                // A delete answered or sent again and answered 404: done either way.
                _ = try await cache.delete(row)
            }
            let (reports, remaining) = await Self.drainAll(cache)
            #expect(remaining == 0)
            #expect(reports.allSatisfy { $0.rejected.isEmpty })
            #expect(server.proxy.faultsApplied >= 2)
            let held = try await FlakyServer.occurrences(of: Set(rows.map(\.id)), in: Chore.self, key: \.id, reading: direct)
            #expect(held.isEmpty)
            #expect(try cache.items(Chore.self, view: "mine").isEmpty)
        }
    }

    @Test(arguments: Backend.all)
    func updatesWhoseAnswersAreLostLandAsSent(_ backend: Backend) async throws {
        try await FlakyServer.run(backend) { server in
            try await server.prepareTable(Chore.self)
            let (flaky, direct, user) = try await server.newUser(retry: Self.retry)
            var rows: [Chore] = []
            for row in Self.chores(10, of: user) { rows.append(try await direct.tables.data.insert(row)) }
            let cache = try SelfDBCache(selfdb: flaky, path: Self.cachePath())
            try cache.savePage(rows, into: "mine")
            server.proxy.add(FaultRule(.loseAnswer, method: "PATCH", pathContains: "/data", trigger: .probability(0.3)))
            for var row in rows {
                row.title += " (renamed)"
                _ = try await cache.update(row)
            }
            let (reports, remaining) = await Self.drainAll(cache)
            #expect(remaining == 0)
            #expect(reports.allSatisfy { $0.rejected.isEmpty })
            let ids = Set(rows.map(\.id))
            let server = try await direct.tables.data.query(Chore.self).pageSize(1000).execute().filter { ids.contains($0.id) }
            #expect(server.count == 10)
            #expect(server.allSatisfy { $0.title.hasSuffix(" (renamed)") })
            #expect(try cache.items(Chore.self, view: "mine").map(\.row).sorted { $0.rank ?? 0 < $1.rank ?? 0 } == server.sorted { $0.rank ?? 0 < $1.rank ?? 0 })
        }
    }

    /// 503 and 429 answered to a write leave it queued (the server did not take it); the next
    /// synchronize sends it, once.
    @Test(arguments: Backend.all)
    func aWriteAnswered503StaysQueuedAndLandsOnceLater(_ backend: Backend) async throws {
        try await FlakyServer.run(backend) { server in
            try await server.prepareTable(Chore.self)
            let (flaky, direct, user) = try await server.newUser(retry: Self.retry)
            let cache = try SelfDBCache(selfdb: flaky, path: Self.cachePath())
            _ = try await flaky.tables.data.query(Chore.self).pageSize(1).execute()
            server.proxy.add(FaultRule(.serviceUnavailable(retryAfter: 1), method: "POST", pathContains: "/data"))
            server.proxy.add(FaultRule(.tooManyRequests(retryAfter: 1), method: "PATCH", pathContains: "/data"))
            let row = Self.chores(1, of: user)[0]
            #expect(try await cache.insert(row, into: "mine") == .pending)
            // The next send looks first (a 429 to the look stops it), then inserts.
            let (_, remaining) = await Self.drainAll(cache)
            #expect(remaining == 0)
            let held = try await FlakyServer.occurrences(of: [row.id], in: Chore.self, key: \.id, reading: direct)
            #expect(held[row.id] == 1)
        }
    }

    /// A reload cancelled while its answer is slow returns at once, cancelled, and the late
    /// answer never reaches the view.
    @Test(arguments: Backend.all)
    func aCancelledReloadStopsAndItsLateAnswerNeverLands(_ backend: Backend) async throws {
        try await FlakyServer.run(backend) { server in
            try await server.prepareTable(Chore.self)
            let (flaky, direct, user) = try await server.newUser(retry: Self.retry)
            let marker = "late-\(user.id.uuidString.prefix(8))"
            let first = try await direct.tables.data.insert(Chore(id: UUID(), title: "\(marker) first", rank: 1, userId: user.id))
            let cache = try SelfDBCache(selfdb: flaky, path: Self.cachePath())
            let feed = cache.fetcher(Chore.self, .all(view: "late", query: Chore.query().search(marker)))
            try await feed.setup()
            #expect(feed.rows.map(\.id) == [first.id])

            _ = try await direct.tables.data.insert(Chore(id: UUID(), title: "\(marker) second", rank: 2, userId: user.id))
            server.proxy.add(FaultRule(.delayAnswer(seconds: 1.5), method: "GET", pathContains: "/data"))
            let reload = Task { try await feed.reload() }
            try await eventually("the reload reached the server") { server.proxy.requests("GET", contains: "/data").count == 2 }
            reload.cancel()
            let result = await reload.result
            // Back before the proxy let the answer go.
            #expect(server.proxy.requests("GET", contains: "/data").last?.delivered == false)
            switch result {
            case .success: Issue.record("the cancelled reload completed")
            case .failure(let error): #expect((error as? CacheError)?.isCancellation == true, "\(error)")
            }
            // Past the time the answer was held: still the old view, in the fetcher and the store.
            try await Task.sleep(for: .seconds(2))
            #expect(feed.rows.map(\.id) == [first.id])
            #expect(try cache.items(Chore.self, view: "late").map(\.row.id) == [first.id])
        }
    }

    /// A setup cancelled while the server is slow: cancelled, with what the cache held shown.
    @Test func aCancelledSetupStopsWithTheCachedRows() async throws {
        try await FlakyServer.run(.emulator) { server in
            try await server.prepareTable(Chore.self)
            let (flaky, _, user) = try await server.newUser(retry: Self.retry)
            let cache = try SelfDBCache(selfdb: flaky, path: Self.cachePath())
            let cached = Self.chores(2, of: user)
            try cache.savePage(cached, into: "slow")
            _ = try await flaky.tables.data.query(Chore.self).pageSize(1).execute()
            server.proxy.add(FaultRule(.delayAnswer(seconds: 1.5), method: "GET", pathContains: "/data"))
            let feed = cache.fetcher(Chore.self, .all(view: "slow", query: Chore.query()))
            let setup = Task { try await feed.setup() }
            try await eventually("the first fetch reached the server") { server.proxy.requests("GET", contains: "/data").count == 2 }
            setup.cancel()
            let result = await setup.result
            #expect(server.proxy.requests("GET", contains: "/data").last?.delivered == false)
            if case .failure(let error) = result {
                #expect((error as? CacheError)?.isCancellation == true, "\(error)")
            } else {
                Issue.record("the cancelled setup completed")
            }
            try await Task.sleep(for: .seconds(2))
            #expect(feed.rows == cached)
        }
    }

    /// A synchronize cancelled mid-send returns cancelled; the write stays queued, and the next
    /// synchronize looks before sending: the server holds it once.
    @Test(arguments: Backend.all)
    func aCancelledSynchronizeLeavesTheWriteQueuedAndItLandsOnce(_ backend: Backend) async throws {
        try await FlakyServer.run(backend) { server in
            try await server.prepareTable(Chore.self)
            let (flaky, direct, user) = try await server.newUser(retry: Self.retry)
            let cache = try SelfDBCache(selfdb: flaky, path: Self.cachePath())
            _ = try await flaky.tables.data.query(Chore.self).pageSize(1).execute()
            server.proxy.goOffline()
            let row = Self.chores(1, of: user)[0]
            #expect(try await cache.insert(row, into: "mine") == .pending)
            try server.proxy.goOnline()
            server.proxy.add(FaultRule(.delayAnswer(seconds: 1.5), method: "POST", pathContains: "/data"))
            let sync = Task { await cache.synchronize() }
            try await eventually("the insert reached the server") { server.proxy.requests("POST", contains: "/data").count == 1 }
            sync.cancel()
            let report = await sync.value
            #expect(report.stoppedBy?.isCancellation == true, "\(String(describing: report.stoppedBy))")
            #expect(report.remaining == 1)
            try await Task.sleep(for: .seconds(2))
            #expect(try cache.pendingMutationCount() == 1)
            #expect(try cache.items(Chore.self, view: "mine").map(\.state) == [.inserting])

            let again = await cache.synchronize()
            #expect(again.remaining == 0)
            #expect(server.proxy.requests("POST", contains: "/data").count == 1)
            let held = try await FlakyServer.occurrences(of: [row.id], in: Chore.self, key: \.id, reading: direct)
            #expect(held[row.id] == 1)
        }
    }
}

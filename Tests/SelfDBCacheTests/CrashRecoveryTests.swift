import Foundation
import SelfDB
import SelfDBCache
import SelfDBRuntime
import SelfDBTestSupport
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

@Suite("pending mutations survive a restart and are replayed once")
@MainActor
struct CrashRecoveryTests {
    @Test func insertSentBeforeACrashIsNotDuplicated() async throws {
        try await CacheFixture.run { fixture in
            let (selfdb, user, _) = try await fixture.seeded(1)
            let path = fixture.cachePath()
            let row = Chore(id: UUID(), title: "sent just before the crash", rank: 5, userId: user.id)
            let untouched = Chore(id: UUID(), title: "never sent", rank: 6, userId: user.id)
            do {
                // First app run: the first insert reaches the server, which stores it, but its
                // answer never comes back (the process dies, or the network loses it)...
                let losing = AnswerLosingTransport()
                let client = SelfDB(baseURL: fixture.emulator.baseURL, apiKey: CacheFixture.apiKey, transport: losing, retryPolicy: .none)
                await client.apiClient.tokenStore.save(await selfdb.session)
                let first = try SelfDBCache(selfdb: client, path: path)
                #expect(try await first.insert(row, into: "all") == .pending)
                #expect(losing.lost.current == 1)
                // ...and the second is queued behind it while the server is away.
                await fixture.stopServer()
                #expect(try await first.insert(untouched, into: "all") == .pending)
                try await fixture.restartServer()
            }

            // Second app run on the same file, the first instance abandoned.
            let second = try SelfDBCache(selfdb: selfdb, path: path)
            #expect(try second.pendingMutationCount() == 2)
            #expect(try second.item(Chore.self, id: row.id.uuidString)?.state == .inserting)
            await second.register(Chore.self)
            let report = await second.synchronize()
            #expect(report.sent == 2)
            #expect(report.remaining == 0)
            let server = try await CacheFixture.serverRows(selfdb)
            #expect(server.filter { $0.id == row.id }.count == 1, "the replayed insert must not duplicate the row")
            #expect(server.filter { $0.id == untouched.id }.count == 1)
            #expect(try second.items(Chore.self, view: "all").map(\.state) == [.normal, .normal])

            // A third run finds nothing left to send.
            let third = try SelfDBCache(selfdb: selfdb, path: path)
            #expect(try third.pendingMutationCount() == 0)
        }
    }

    // The helper process needs `posix_spawn` (HelperProcess): macOS and Linux only.
    #if os(macOS) || os(Linux)
    @Test func pendingInsertSurvivesSIGKILLAndIsReplayedOnce() async throws {
        try await CacheFixture.run { fixture in
            let (selfdb, user, _) = try await fixture.seeded(1)
            let helper = try #require(Self.helperURL, "selfdb-cache-crash-helper is not built next to the tests")
            let table = try #require(try await selfdb.tables.list(search: Chore.tableName).first { $0.name == Chore.tableName })
            // The insert's POST is answered 503, so it stays queued in the helper's cache file.
            fixture.emulator.injectFault(.serviceUnavailable(), method: "POST", path: "/tables/\(table.id.queryValue)/data")
            let path = fixture.cachePath("killed")
            let rowId = UUID()

            let process = try HelperProcess(
                helper,
                arguments: [fixture.emulator.baseURL.absoluteString, CacheFixture.apiKey, user.email, CacheFixture.password, path, rowId.uuidString, user.id.uuidString]
            )
            let line = await TestExecutables.firstOutput(of: process.output)
            #expect(line.hasPrefix("PENDING"), "helper said: \(line)")
            process.send(SIGKILL)
            #expect(process.waitUntilExit() == .signal(SIGKILL))

            let reopened = try SelfDBCache(selfdb: selfdb, path: path)
            #expect(try reopened.pendingMutationCount() == 1)
            #expect(try reopened.item(Chore.self, id: rowId.uuidString)?.state == .inserting)
            await reopened.register(Chore.self)
            let report = await reopened.synchronize()
            #expect(report.sent == 1)
            #expect(try await CacheFixture.serverRows(selfdb).filter { $0.id == rowId }.count == 1)
            #expect(try reopened.item(Chore.self, id: rowId.uuidString)?.state == .normal)
            #expect(await reopened.synchronize().sent == 0, "replayed once")
        }
    }

    /// The helper executable, built next to the test bundle.
    static var helperURL: URL? { TestExecutables.url(named: "selfdb-cache-crash-helper") }
    #endif

    @Test func aDamagedCacheFileIsATypedErrorAndIsKept() async throws {
        try await CacheFixture.run { fixture in
            let (selfdb, _) = try await fixture.newUser()
            let path = fixture.cachePath("damaged")
            let garbage = Data(repeating: 0x5A, count: 4096)
            try garbage.write(to: URL(fileURLWithPath: path))
            #expect(throws: CacheError.self) { _ = try SelfDBCache(selfdb: selfdb, path: path) }
            #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == garbage)
        }
    }
}

/// Sends every request, and loses the answer to the first POST: the server applied it, the
/// caller hears only that the connection was lost.
final class AnswerLosingTransport: HTTPTransport {
    let lost = Locked(0)
    private let real = platformHTTPTransport()

    func send(_ request: URLRequest) async throws -> (Data, HTTPURLResponse) {
        let answer = try await real.send(request)
        if request.httpMethod == "POST",
            lost.withLock({ count in
                defer { count += 1 }
                return count == 0
            })
        {
            throw URLError(.networkConnectionLost)
        }
        return answer
    }
}

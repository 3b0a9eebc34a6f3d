import FlakyServerSupport
import Foundation
import SelfDB
import SelfDBRuntime
import SelfDBTestSupport
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The plain client's writes through the fault proxy, each fault class, on the emulator and
/// (when `SELFDB_REAL_URL` is set) on a real SelfDB: what the caller is told, and what the
/// server then holds, read directly.
@Suite("client writes on a flaky network", .serialized)
struct ClientWriteFaultTests {
    static func memo(_ user: UserRead, _ title: String = "memo") -> Memo {
        Memo(id: UUID(), title: title, rank: 1, pinned: false, userId: user.id)
    }

    @Test(arguments: Backend.all)
    func anInsertWhoseAnswerIsLostOnAKeptAliveConnectionFailsAndTheServerHoldsItOnce(_ backend: Backend) async throws {
        try await FlakyServer.run(backend) { server in
            let (flaky, direct, user) = try await server.newUser()
            try await server.prepareTable(Memo.self)
            // The table's id is looked up through the proxy first: the insert then goes on
            // that kept-alive connection.
            _ = try await flaky.tables.data.query(Memo.self).pageSize(1).execute()
            server.proxy.add(FaultRule(.loseAnswer, method: "POST", pathContains: "/data", connection: .reused))
            let memo = Self.memo(user)
            do {
                try await flaky.tables.data.insert(memo)
                Issue.record("the insert reported success though its answer was lost")
            } catch let error as SelfDBError {
                #expect(error.outcomeIsUnknown, "\(error)")
            }
            #expect(server.proxy.requests("POST", contains: "/data").first?.reusedConnection == true)
            let held = try await FlakyServer.occurrences(of: [memo.id], in: Memo.self, key: \.id, reading: direct)
            #expect(held[memo.id] == 1)
        }
    }

    @Test(arguments: Backend.all)
    func anInsertWhoseAnswerIsLostOnAFreshConnectionFailsAndTheServerHoldsItOnce(_ backend: Backend) async throws {
        try await FlakyServer.run(backend) { server in
            let (_, direct, user) = try await server.newUser()
            let table = try await server.prepareTable(Memo.self)
            // A client of its own, signed in with the same session: its first request is the
            // insert (by the table's id, which needs no lookup).
            let flaky = server.client()
            let session = try #require(await direct.session)
            await flaky.apiClient.tokenStore.save(session)
            server.proxy.add(FaultRule(.loseAnswer, method: "POST", pathContains: "/data", connection: .fresh))
            let memo = Self.memo(user)
            let values: [String: JSONValue] = ["id": .string(memo.id.uuidString), "title": .string(memo.title), "user_id": .string(user.id.uuidString)]
            let error = await #expect(throws: SelfDBError.self) { try await flaky.tables.data.insert(table.id, data: values) }
            #expect(error?.outcomeIsUnknown == true)
            #expect(server.proxy.requests("POST", contains: "/data").map(\.reusedConnection) == [false])
            let held = try await FlakyServer.occurrences(of: [memo.id], in: Memo.self, key: \.id, reading: direct)
            #expect(held[memo.id] == 1)
        }
    }

    @Test(arguments: Backend.all)
    func aCutAnswerToAnInsertFailsAndTheServerHoldsItOnce(_ backend: Backend) async throws {
        try await FlakyServer.run(backend) { server in
            let (flaky, direct, user) = try await server.newUser()
            try await server.prepareTable(Memo.self)
            server.proxy.add(FaultRule(.cutAnswer(fraction: 0.5), method: "POST", pathContains: "/data"))
            let memo = Self.memo(user)
            do {
                try await flaky.tables.data.insert(memo)
                Issue.record("the insert reported success though its answer was cut")
            } catch let error as SelfDBError {
                #expect(error.outcomeIsUnknown, "\(error)")
            }
            let held = try await FlakyServer.occurrences(of: [memo.id], in: Memo.self, key: \.id, reading: direct)
            #expect(held[memo.id] == 1)
        }
    }

    /// A reset before the server saw the request: nothing landed, whatever the client was told.
    @Test(arguments: Backend.all)
    func anInsertResetBeforeTheServerSawItLeavesNothing(_ backend: Backend) async throws {
        try await FlakyServer.run(backend) { server in
            let (flaky, direct, user) = try await server.newUser()
            try await server.prepareTable(Memo.self)
            server.proxy.add(FaultRule(.resetBeforeRequest, method: "POST", pathContains: "/data"))
            let memo = Self.memo(user)
            await #expect(throws: SelfDBError.self) { try await flaky.tables.data.insert(memo) }
            let held = try await FlakyServer.occurrences(of: [memo.id], in: Memo.self, key: \.id, reading: direct)
            #expect(held[memo.id] == nil)
        }
    }

    /// 503 and 429 with `Retry-After`: a read waits as asked and is sent again; a write is not
    /// sent again (the caller decides), and the server holds nothing of it.
    @Test(arguments: Backend.all)
    func retryAfterIsHonouredForReadsAndWritesAreNotSentAgain(_ backend: Backend) async throws {
        try await FlakyServer.run(backend) { server in
            let (flaky, direct, user) = try await server.newUser()
            try await server.prepareTable(Memo.self)
            server.proxy.add(FaultRule(.serviceUnavailable(retryAfter: 1), method: "GET", pathContains: "/data"))
            server.proxy.add(FaultRule(.tooManyRequests(retryAfter: 0), method: "GET", pathContains: "/data"))
            _ = try await flaky.tables.data.query(Memo.self).execute()
            #expect(server.proxy.requests("GET", contains: "/data").count == 3)

            server.proxy.add(FaultRule(.serviceUnavailable(retryAfter: 1), method: "POST", pathContains: "/data"))
            let memo = Self.memo(user)
            let refusal = await #expect(throws: SelfDBError.self) { try await flaky.tables.data.insert(memo) }
            if case .serviceUnavailable(let retryAfter, _)? = refusal {
                #expect(retryAfter == 1)
            } else {
                Issue.record("expected 503, got \(String(describing: refusal))")
            }
            #expect(server.proxy.requests("POST", contains: "/data").count == 1)
            let held = try await FlakyServer.occurrences(of: [memo.id], in: Memo.self, key: \.id, reading: direct)
            #expect(held[memo.id] == nil)
        }
    }

    /// A refused connection is certainly not delivered: the client may send a write again.
    @Test func aWriteThatCouldNotConnectIsSentAgainAndLandsOnce() async throws {
        try await FlakyServer.run(.emulator) { server in
            let (flaky, direct, user) = try await server.newUser()
            try await server.prepareTable(Memo.self)
            // Every write's first try fails to connect; the retry policy sends it again.
            let memo = Self.memo(user)
            let refusing = RefusingFirstTransport(refusals: 1)
            let client = server.client(transport: refusing)
            await client.apiClient.tokenStore.save(try #require(await flaky.session))
            try await client.tables.data.insert(memo)
            #expect(refusing.attempts.current == 3)  // the table lookup, the refused insert, the insert
            let held = try await FlakyServer.occurrences(of: [memo.id], in: Memo.self, key: \.id, reading: direct)
            #expect(held[memo.id] == 1)
        }
    }

    /// An update whose answer is lost: the caller hears it; the server holds the new values
    /// (once: SelfDB's PATCH sets absolute values, so sending it again would change nothing).
    @Test(arguments: Backend.all)
    func anUpdateWhoseAnswerIsLostFailsAndTheServerHoldsTheNewValues(_ backend: Backend) async throws {
        try await FlakyServer.run(backend) { server in
            let (flaky, direct, user) = try await server.newUser()
            try await server.prepareTable(Memo.self)
            var memo = try await direct.tables.data.insert(Self.memo(user, "before"))
            memo.title = "after"
            server.proxy.add(FaultRule(.loseAnswer, method: "PATCH", pathContains: "/data"))
            await #expect(throws: SelfDBError.self) { try await flaky.tables.data.update(memo) }
            #expect(server.proxy.requests("PATCH", contains: "/data").count == 1)
            let rows = try await direct.tables.data.query(Memo.self).pageSize(1000).execute().filter { $0.id == memo.id }
            #expect(rows.map(\.title) == ["after"])
        }
    }

    /// A delete whose answer is lost is idempotent: the client sends it again, and the server
    /// answers 404 (the first one landed). The row is gone either way.
    @Test(arguments: Backend.all)
    func aDeleteWhoseAnswerIsLostIsSentAgainAndTheRowIsGone(_ backend: Backend) async throws {
        try await FlakyServer.run(backend) { server in
            let (flaky, direct, user) = try await server.newUser()
            try await server.prepareTable(Memo.self)
            let memo = try await direct.tables.data.insert(Self.memo(user))
            server.proxy.add(FaultRule(.loseAnswer, method: "DELETE", pathContains: "/data"))
            do {
                try await flaky.tables.data.delete(memo)
                Issue.record("the resent delete found the row it had deleted")
            } catch SelfDBError.notFound {
                // The second send's answer: the first one deleted it.
            }
            #expect(server.proxy.requests("DELETE", contains: "/data").count == 2)
            let held = try await FlakyServer.occurrences(of: [memo.id], in: Memo.self, key: \.id, reading: direct)
            #expect(held[memo.id] == nil)
        }
    }

    /// Reads through resets, cut answers and lost answers are sent again until they succeed.
    @Test(arguments: Backend.all)
    func readsAreSentAgainThroughEveryFault(_ backend: Backend) async throws {
        try await FlakyServer.run(backend) { server in
            let (flaky, direct, user) = try await server.newUser()
            try await server.prepareTable(Memo.self)
            let memo = try await direct.tables.data.insert(Self.memo(user))
            for fault in [Fault.resetBeforeRequest, .cutAnswer(fraction: 0.3), .loseAnswer] {
                server.proxy.add(FaultRule(fault, method: "GET", pathContains: "/data"))
                let rows = try await flaky.tables.data.query(Memo.self).pageSize(1000).execute()
                #expect(rows.contains { $0.id == memo.id }, "after \(fault)")
            }
        }
    }
}

/// A transport whose first `refusals` sends of each non-GET request fail as a refused
/// connection would (nothing sent), then go through URLSession's.
final class RefusingFirstTransport: HTTPTransport {
    let attempts = Locked(0)
    private let refusals: Int
    private let refused = Locked(0)
    private let real = platformHTTPTransport()

    init(refusals: Int) { self.refusals = refusals }

    func send(_ request: URLRequest) async throws -> (Data, HTTPURLResponse) {
        attempts.withLock { $0 += 1 }
        if request.httpMethod != "GET",
            refused.withLock({ count in
                defer { count += 1 }
                return count < refusals
            })
        {
            throw URLError(.cannotConnectToHost)
        }
        return try await real.send(request)
    }
}

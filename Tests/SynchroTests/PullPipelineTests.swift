import Foundation
import SelfDBEmulator
import SelfDBRuntime
import Synchro
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Protocol-2 pull pages are pipelined: the next page is asked for once a page's head is read,
/// and a page is decoded while the one before it is written. A page whose rows cannot be
/// decoded, or which is not JSON at all, still fails the pull with a typed error, after the
/// pages before it were written whole and in order; the next pull picks up where they left.
@Suite("Synchro protocol 2: pipelined pull pages")
struct PullPipelineTests {
    @Test(arguments: [
        // The head reads (`has_more`, cursors), the rows do not decode.
        PageCorruption.rows,
        // Neither does anything.
        PageCorruption.notJSON,
        // A head without `has_more`.
        PageCorruption.head,
    ])
    func aBadPageFailsThePullAndKeepsThePagesBefore(_ corruption: PageCorruption) async throws {
        try await SyncWorld.run(configure: ProtocolTwoClientTests.protocolTwo) { world in
            let user = SyncWorld.newUser()
            let transport = PullPageCorruptingTransport(corruptedPage: 3, corruption: corruption)
            let reader = try world.device("reader", user: user, transport: transport) { $0.pullPageSize = 2 }
            try await reader.start()
            let writer = try await world.startedDevice("writer", user: user)
            try writer.writeTransaction { db in
                for index in 0..<40 {
                    try db.execute(sql: "INSERT INTO tasks (id, user_id, title) VALUES (?, ?, ?)", arguments: [UUID().uuidString, user, "task \(index)"])
                }
            }
            try await writer.syncNow()

            transport.arm()
            do {
                try await reader.syncNow()
                Issue.record("pulled through a bad page (\(corruption))")
            } catch SynchroError.invalidResponse {
            }
            // Pages 1 and 2 were written (2 and 4 rows when the pages grow, 2 and 2 when a loaded
            // machine answers the first too slowly for them to), the third none of it.
            let held = try reader.live("tasks").count
            #expect(held == transport.rowsBeforeTheBadPage, "rows held after the bad page: \(held)")
            #expect(held >= 4)

            try await reader.syncNow()
            #expect(try reader.live("tasks") == writer.live("tasks"))
            #expect(try reader.live("tasks").count == 40)
            #expect(transport.pagesAnswered > 3)
        }
    }

    @Test(arguments: [PageCorruption.rows, PageCorruption.notJSON, PageCorruption.head])
    func aBadRebuildPageFailsTheRebuildAndTheNextOneCompletes(_ corruption: PageCorruption) async throws {
        try await SyncWorld.run(configure: ProtocolTwoClientTests.protocolTwo) { world in
            let user = SyncWorld.newUser()
            let writer = try await world.startedDevice("writer", user: user)
            try writer.writeTransaction { db in
                for index in 0..<40 {
                    try db.execute(sql: "INSERT INTO tasks (id, user_id, title) VALUES (?, ?, ?)", arguments: [UUID().uuidString, user, "task \(index)"])
                }
            }
            try await writer.syncNow()

            let transport = PullPageCorruptingTransport(corruptedPage: 3, corruption: corruption, path: "/sync/rebuild")
            let reader = try world.device("reader", user: user, transport: transport) { $0.pullPageSize = 2 }
            transport.arm()
            do {
                try await reader.start()
                Issue.record("rebuilt through a bad page (\(corruption))")
            } catch SynchroError.invalidResponse {
            }
            #expect(transport.pagesAnswered >= 3)
            try await reader.start()
            try await reader.syncNow()
            #expect(try reader.live("tasks") == writer.live("tasks"))
            #expect(try reader.live("tasks").count == 40)
            #expect(try reader.pendingChangeCount() == 0)
        }
    }
}

/// How ``PullPageCorruptingTransport`` spoils its page.
enum PageCorruption: String, Sendable, CustomTestStringConvertible {
    case rows, notJSON, head
    var testDescription: String { rawValue }
}

/// A real transport that, once armed, spoils the answer to the `corruptedPage`-th request to
/// `path` after that (counting from 1) and lets every other answer through.
final class PullPageCorruptingTransport: HTTPTransport, Sendable {
    private let real = URLSessionTransport()
    private let corruptedPage: Int
    private let corruption: PageCorruption
    private let path: String
    /// Armed, the pulls answered since, and the rows of those before the corrupted one.
    private let state = Locked<(armed: Bool, pulls: Int, rows: Int)>((false, 0, 0))

    init(corruptedPage: Int, corruption: PageCorruption, path: String = "/sync/pull") {
        (self.corruptedPage, self.corruption, self.path) = (corruptedPage, corruption, path)
    }

    func arm() { state.withLock { $0 = (true, 0, 0) } }

    var pagesAnswered: Int { state.current.pulls }

    /// The rows of the pages answered after `arm()` and before the corrupted one.
    var rowsBeforeTheBadPage: Int { state.current.rows }

    func send(_ request: URLRequest) async throws -> (Data, HTTPURLResponse) {
        let (data, response) = try await real.send(request)
        guard request.url?.path == path else { return (data, response) }
        let rows = ((try? JSONSerialization.jsonObject(with: data)) as? [String: Any]).map { page in
            ((page["changes"] ?? page["records"]) as? [Any])?.count ?? 0
        }
        let spoil = state.withLock { state -> Bool in
            state.pulls += 1
            let spoil = state.armed && state.pulls == corruptedPage
            if state.armed, state.pulls < corruptedPage { state.rows += rows ?? 0 }
            if spoil { state.armed = false }
            return spoil
        }
        guard spoil else { return (data, response) }
        let text = String(decoding: data, as: UTF8.self)
        switch corruption {
        case .rows:
            let spoiled = text.replacingOccurrences(of: #""changes":["#, with: #""changes":[{"scope":1},"#)
                .replacingOccurrences(of: #""records":["#, with: #""records":[{"table":1},"#)
            return (Data(spoiled.utf8), response)
        case .notJSON: return (Data(text.dropLast(1).utf8), response)
        case .head: return (Data(text.replacingOccurrences(of: #""has_more":"#, with: #""more":"#).utf8), response)
        }
    }
}

import Foundation
import SelfDBEmulator
import SelfDBRuntime
import Testing

@testable import Synchro

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Pull and rebuild pages grow while the server answers full pages quickly, and shrink when
/// it slows down (`PageSize`).
@Suite("Synchro client: page sizes that follow the server")
struct PageSizeTests {
    @Test("starts at the configured size; doubles after quick pages with more to come, up to 1,000; halves after a slow one, down to the configured size")
    func growsAndShrinks() {
        var size = PageSize(configured: 100)
        #expect(size.current == 100)
        size.record(asked: 100, took: .milliseconds(20), hasMore: false)
        #expect(size.current == 100, "a last page says nothing of a larger one")
        for expected in [200, 400, 800, 1_000, 1_000] {
            size.record(asked: size.current, took: .milliseconds(20), hasMore: true)
            #expect(size.current == expected)
        }
        size.record(asked: 1_000, took: .milliseconds(800), hasMore: true)
        #expect(size.current == 1_000, "neither quick nor slow: kept")
        size.record(asked: 1_000, took: .seconds(3), hasMore: true)
        #expect(size.current == 500)
        for _ in 0..<5 { size.record(asked: size.current, took: .seconds(3), hasMore: true) }
        #expect(size.current == 100, "never below the configured size")
        size.record(asked: 49, took: .milliseconds(20), hasMore: true)
        #expect(size.current == 100, "a page asked at less than half the current size (one asked before two changes) grows nothing")
        size.record(asked: 50, took: .milliseconds(20), hasMore: true)
        #expect(size.current == 200, "a batch cut before the last doubling (two on the wire) still grows the next")

        #expect(PageSize(configured: 0).current == 1)
        #expect(PageSize(configured: 5_000).current == 1_000)
        #expect(PageSize(configured: 100, startingAt: 800).current == 800)
        #expect(PageSize(configured: 100, startingAt: 50).current == 100, "never below the configured size")
        #expect(PageSize(configured: 100, startingAt: 5_000).current == 1_000)
        var large = PageSize(configured: 1_000)
        large.record(asked: 1_000, took: .milliseconds(1), hasMore: true)
        #expect(large.current == 1_000)
    }

    @Test("3,000 rows pushed, pulled back and rebuilt take fewer requests than thirty each (a dozen or so when the server is quick)")
    func fewerPages() async throws {
        try await SyncWorld.run(configure: ProtocolTwoClientTests.protocolTwo) { world in
            let user = SyncWorld.newUser()
            let writer = try await world.startedDevice("writer", user: user)
            try writer.writeTransaction { db in
                for index in 0..<3_000 {
                    try db.execute(sql: "INSERT INTO tasks (id, user_id, title) VALUES (?, ?, ?)", arguments: [UUID().uuidString, user, "task \(index)"])
                }
            }
            let pullsBefore = world.emulator.requestCount(method: "POST", path: "/sync/pull")
            let pushesBefore = world.emulator.requestCount(method: "POST", path: "/sync/push")
            try await writer.syncNow()
            let pulls = world.emulator.requestCount(method: "POST", path: "/sync/pull") - pullsBefore
            let pushes = world.emulator.requestCount(method: "POST", path: "/sync/push") - pushesBefore
            #expect(try writer.pendingChangeCount() == 0)
            #expect(try world.emulator.syncedRowCount(table: "tasks", userID: user) == 3_000)

            let rebuildsBefore = world.emulator.requestCount(method: "POST", path: "/sync/rebuild")
            let reader = try await world.startedDevice("reader", user: user)
            let rebuilds = world.emulator.requestCount(method: "POST", path: "/sync/rebuild") - rebuildsBefore
            #expect(try reader.live("tasks").count == 3_000)
            // Pages of 100 throughout would be 30 pushes, 30 pulls and 30 rebuild pages. How
            // far each grows depends on how quickly this machine's server answers (a busy
            // debug build may answer slowly): at least some of them grow.
            #expect(pushes <= 30 && pulls <= 31 && rebuilds <= 31, "pushes \(pushes), pulls \(pulls), rebuilds \(rebuilds)")
            #expect(pushes + pulls + rebuilds < 80, "pushes \(pushes), pulls \(pulls), rebuilds \(rebuilds)")
            try await reader.syncNow()
            #expect(try reader.pendingChangeCount() == 0)
        }
    }

    @Test("the pull after a push starts at the configured size, or at the size the push's batches grew to")
    func thePullAfterAPushStartsWhereTheBatchesGrew() async throws {
        try await SyncWorld.run(configure: ProtocolTwoClientTests.protocolTwo) { world in
            let user = SyncWorld.newUser()
            // Batches configured larger than pages: a push of one row grows nothing, and its pull
            // asks the configured page.
            let recorder = SyncRequestRecorder()
            let device = try world.device("small", user: user, transport: recorder) {
                $0.pushBatchSize = 500
                $0.pullPageSize = 50
            }
            try await device.start()
            try device.execute("INSERT INTO tasks (id, user_id, title) VALUES (?, ?, 'one')", params: [UUID().uuidString, user])
            recorder.reset()
            try await device.syncNow()
            #expect(recorder.pushSizes == [1])
            #expect(recorder.pullLimits.first == 50)

            // Batches of 100 that grow while the server answers quickly: the pull starts at the
            // size they reached (no growth on a slow machine: at the configured size).
            let growing = SyncRequestRecorder()
            let writer = try world.device("large", user: user, transport: growing) {
                $0.pushBatchSize = 100
                $0.pullPageSize = 50
            }
            try await writer.start()
            try writer.writeTransaction { db in
                for index in 0..<2_000 {
                    try db.execute(sql: "INSERT INTO tasks (id, user_id, title) VALUES (?, ?, ?)", arguments: [UUID().uuidString, user, "task \(index)"])
                }
            }
            growing.reset()
            try await writer.syncNow()
            let largest = growing.pushSizes.max() ?? 0
            #expect(growing.pushSizes.reduce(0, +) == 2_000)
            // The size reached may be more than the last batch, which the records left took; on
            // a loaded machine it may grow only on the last answers, which no batch then carries.
            let first = growing.pullLimits.first ?? 0
            let grownSize = first >= largest && first > 100 && first <= 1_000
            #expect(largest > 100 ? grownSize : first == 50 || grownSize, "pushes \(growing.pushSizes), pulls \(growing.pullLimits)")
        }
    }
}

/// A real transport that notes the size of each push and the limit of each pull it sends.
final class SyncRequestRecorder: HTTPTransport, Sendable {
    private let real = URLSessionTransport()
    private let noted = Locked<(pushes: [Int], pulls: [Int])>(([], []))

    var pushSizes: [Int] { noted.current.pushes }
    var pullLimits: [Int] { noted.current.pulls }

    func reset() { noted.withLock { $0 = ([], []) } }

    func send(_ request: URLRequest) async throws -> (Data, HTTPURLResponse) {
        if let body = request.httpBody, case .object(let object)? = try? JSONValue.parse(body) {
            switch request.url?.path {
            case "/sync/push": noted.withLock { $0.pushes.append(object["mutations"]?.arrayValue?.count ?? -1) }
            case "/sync/pull": noted.withLock { $0.pulls.append(Int(object["limit"]?.integerValue ?? -1)) }
            default: break
            }
        }
        return try await real.send(request)
    }
}

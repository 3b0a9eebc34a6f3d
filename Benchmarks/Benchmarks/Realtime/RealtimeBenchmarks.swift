import Benchmark
import Foundation
import SelfDB
import SelfDBEmulator

/// Realtime on loopback against the emulator: insert-to-event latency (an insert through the
/// REST client until its change arrives on a typed stream; read p50/p99 of the wall clock),
/// and events per second a typed stream delivers when the server pushes a burst of 1,000.
let benchmarks: @Sendable () -> Void = {
    Benchmark.defaultConfiguration = .init(metrics: [.wallClock, .throughput], maxDuration: .seconds(5), maxIterations: 1_000)

    Benchmark("Insert to typed event (one row)") { benchmark, live in
        for _ in benchmark.scaledIterations {
            let row = LiveRow(id: UUID(), title: "latency", rank: 0, userId: live.userID)
            _ = try await live.selfdb.tables.data.insert(row)
            guard await live.next() != nil else { throw LiveError.streamEnded }
        }
    } setup: {
        try await Live.shared.prepare()
    }

    Benchmark("Typed stream: 1,000 pushed changes", configuration: .init(maxIterations: 50)) { benchmark, live in
        let frames = (0..<1_000).map { index in
            #"{"topic":"table:live_rows","event":"insert","payload":{"event":"INSERT","table":"live_rows","new":{"id":"\#(UUID().uuidString)","title":"burst \#(index)","rank":\#(index),"user_id":"\#(live.userID.uuidString)"},"old":null},"ref":null}"#
        }
        for _ in benchmark.scaledIterations {
            benchmark.startMeasurement()
            for frame in frames { live.emulator.sendRawRealtimeFrame(frame) }
            for _ in 0..<frames.count {
                guard await live.next() != nil else { throw LiveError.streamEnded }
            }
            benchmark.stopMeasurement()
        }
    } setup: {
        try await Live.shared.prepare()
    }
}

enum LiveError: Error { case streamEnded }

/// One emulator, a signed-in client and one typed stream shared by the benchmarks.
final class Live: Sendable {
    let emulator: SelfDBEmulator
    let selfdb: SelfDB
    let userID: UUID
    private let iterator: Iterator

    /// AsyncStream's iterator is not Sendable; an actor owns it.
    actor Iterator {
        var base: AsyncStream<TableChange<LiveRow>>.Iterator
        init(_ stream: AsyncStream<TableChange<LiveRow>>) { base = stream.makeAsyncIterator() }
        func next() async -> TableChange<LiveRow>? {
            // An async mutating call cannot work on the actor's property in place; the
            // iterator is a thin handle on the stream, so a copy reads the same elements.
            var iterator = base
            let change = await iterator.next(isolation: self)
            base = iterator
            return change
        }
    }

    private init(emulator: SelfDBEmulator, selfdb: SelfDB, userID: UUID, stream: AsyncStream<TableChange<LiveRow>>) {
        self.emulator = emulator
        self.selfdb = selfdb
        self.userID = userID
        iterator = Iterator(stream)
    }

    func next() async -> TableChange<LiveRow>? { await iterator.next() }

    static let shared = Preparer()

    actor Preparer {
        private var live: Live?

        func prepare() async throws -> Live {
            if let live { return live }
            let emulator = try await SelfDBEmulator.start(.init(apiKey: "bench", admin: .init(email: "admin@example.com", password: "Admin123!"), port: 0, passwordHashIterations: 1_000))
            let selfdb = SelfDB(baseURL: emulator.baseURL, apiKey: "bench")
            try await selfdb.auth.login(email: "admin@example.com", password: "Admin123!")
            _ = try await selfdb.tables.create(from: LiveRow.self)
            try await selfdb.realtime.connect()
            let stream = try await selfdb.realtime.changes(LiveRow.self)
            let created = Live(emulator: emulator, selfdb: selfdb, userID: try await selfdb.auth.me().id, stream: stream)
            live = created
            return created
        }
    }
}

import Benchmark
import Foundation
import SelfDB
import SelfDBEmulator

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Client overhead over bare URLSession for the same request on loopback (target ≤ 1.1×), and
/// decoding 10,000 rows into the generated model against a hand-written one (target ≤ 1.05×).
let benchmarks: @Sendable () -> Void = {
    Benchmark.defaultConfiguration = .init(metrics: [.wallClock, .throughput, .mallocCountTotal], maxDuration: .seconds(5), maxIterations: 2_000)

    Benchmark("GET /users/me: SelfDB client") { benchmark, loopback in
        for _ in benchmark.scaledIterations {
            blackHole(try? await loopback.client.auth.me())
        }
    } setup: {
        try await LoopbackEmulator.shared.prepare()
    }

    Benchmark("GET /users/me: bare URLSession") { benchmark, loopback in
        let session = URLSession(configuration: .ephemeral)
        for _ in benchmark.scaledIterations {
            if let (data, _) = try? await session.data(for: loopback.bareRequest) {
                blackHole(try? JSONCoding.makeDecoder().decode(UserRead.self, from: data))
            }
        }
    } setup: {
        try await LoopbackEmulator.shared.prepare()
    }

    let rows = RowsFixture.json(count: 10_000)
    Benchmark("Decode 10,000 rows: generated BenchRow", configuration: .init(maxIterations: 50)) { benchmark in
        let decoder = JSONCoding.makeDecoder()
        for _ in benchmark.scaledIterations {
            blackHole(try? decoder.decode([BenchRow].self, from: rows))
        }
    }

    Benchmark("Decode 10,000 rows: generated model BenchRowModel (WireKey)", configuration: .init(maxIterations: 50)) { benchmark in
        let decoder = JSONCoding.makeDecoder()
        for _ in benchmark.scaledIterations {
            blackHole(try? decoder.decode([BenchRowModel].self, from: rows))
        }
    }

    Benchmark("Decode 10,000 rows: hand-written Codable", configuration: .init(maxIterations: 50)) { benchmark in
        let decoder = JSONCoding.makeDecoder()
        for _ in benchmark.scaledIterations {
            blackHole(try? decoder.decode([HandWrittenRow].self, from: rows))
        }
    }

    // Issue 17: a typed table query decodes its page straight into the model (target ≤ 1.1×
    // of decoding the same rows with JSONDecoder).
    Benchmark("Typed table query: 1,000-row page (TypedTableQuery.execute)", configuration: .init(maxIterations: 500)) { (benchmark: Benchmark, selfdb: SelfDB) in
        for _ in benchmark.scaledIterations {
            blackHole(try? await selfdb.tables.data.query(BenchRow.self).pageSize(TypedQueryFixture.rowCount).execute())
        }
    } setup: {
        let selfdb = try TypedQueryFixture.client()
        _ = try await selfdb.tables.data.query(BenchRow.self).execute()  // the table id, looked up once
        return selfdb
    }

    Benchmark("Typed table query: the same 1,000 rows, JSONDecoder", configuration: .init(maxIterations: 500)) { benchmark in
        let decoder = JSONCoding.makeDecoder()
        for _ in benchmark.scaledIterations {
            blackHole(try? decoder.decode([BenchRow].self, from: TypedQueryFixture.rows))
        }
    }
}

/// A signed-in client and the same request built by hand, against one emulator.
struct Loopback: Sendable {
    let client: SelfDB
    let bareRequest: URLRequest
}

/// One emulator for all the request benchmarks (started by the first one).
actor LoopbackEmulator {
    static let shared = LoopbackEmulator()
    private var prepared: Loopback?
    // Kept so the server lives as long as the benchmark process.
    private var emulator: SelfDBEmulator?

    func prepare() async throws -> Loopback {
        if let prepared { return prepared }
        let emulator = try await SelfDBEmulator.start(.init(apiKey: "bench", admin: .init(email: "admin@example.com", password: "Admin123!"), port: 0, passwordHashIterations: 1_000))
        self.emulator = emulator
        let selfdb = SelfDB(baseURL: emulator.baseURL, apiKey: "bench")
        try await selfdb.auth.login(email: "admin@example.com", password: "Admin123!")
        var request = URLRequest(url: emulator.baseURL.appendingPathComponent("users/me"))
        request.setValue("bench", forHTTPHeaderField: "X-API-Key")
        request.setValue("application/json", forHTTPHeaderField: "Accept")
        if let token = await selfdb.session?.accessToken {
            request.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization")
        }
        let loopback = Loopback(client: selfdb, bareRequest: request)
        prepared = loopback
        return loopback
    }
}

enum RowsFixture {
    /// A JSON array of rows as SelfDB returns them (timestamps with fractions and `Z`).
    static func json(count: Int) -> Data {
        var text = "["
        for index in 0..<count {
            if index > 0 { text += "," }
            let id = UUID().uuidString.lowercased()
            text +=
                #"{"id":"\#(id)","title":"Row \#(index)","done":\#(index % 2 == 0),"priority":\#(index % 5),"score":\#(Double(index) / 7),"created_at":"2024-05-01T10:00:\#(String(format: "%02d", index % 60)).123456Z","notes":null}"#
        }
        return Data((text + "]").utf8)
    }
}

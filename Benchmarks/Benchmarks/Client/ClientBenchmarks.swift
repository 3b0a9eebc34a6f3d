import Benchmark
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import SelfDB
import SelfDBEmulator

/// Client overhead over bare URLSession for the same request on loopback (target ≤ 1.1×), and
/// decoding 10,000 rows into the generated model against a hand-written one (target ≤ 1.05×).
let benchmarks: @Sendable () -> Void = {
    Benchmark.defaultConfiguration = .init(metrics: [.wallClock, .throughput, .mallocCountTotal], maxDuration: .seconds(5), maxIterations: 2_000)

    Benchmark("GET /users/me: SelfDB client", setup: { try await Loopback.shared.prepare() }) { benchmark in
        let selfdb = await Loopback.shared.client
        for _ in benchmark.scaledIterations {
            blackHole(try? await selfdb?.auth.me())
        }
    }

    Benchmark("GET /users/me: bare URLSession", setup: { try await Loopback.shared.prepare() }) { benchmark in
        let request = await Loopback.shared.bareRequest
        let session = URLSession(configuration: .ephemeral)
        for _ in benchmark.scaledIterations {
            guard let request else { return }
            let (data, _) = (try? await session.data(for: request)) ?? (Data(), URLResponse())
            blackHole(try? JSONCoding.makeDecoder().decode(UserRead.self, from: data))
        }
    }

    let rows = RowsFixture.json(count: 10_000)
    Benchmark("Decode 10,000 rows: generated BenchRow", configuration: .init(maxIterations: 50)) { benchmark in
        let decoder = JSONCoding.makeDecoder()
        for _ in benchmark.scaledIterations {
            blackHole(try? decoder.decode([BenchRow].self, from: rows))
        }
    }

    Benchmark("Decode 10,000 rows: hand-written Codable", configuration: .init(maxIterations: 50)) { benchmark in
        let decoder = JSONCoding.makeDecoder()
        for _ in benchmark.scaledIterations {
            blackHole(try? decoder.decode([HandWrittenRow].self, from: rows))
        }
    }
}

/// One emulator and one signed-in client for the request benchmarks.
actor Loopback {
    static let shared = Loopback()
    private(set) var client: SelfDB?
    private(set) var bareRequest: URLRequest?
    private var emulator: SelfDBEmulator?

    func prepare() async throws {
        guard emulator == nil else { return }
        let emulator = try await SelfDBEmulator.start(.init(apiKey: "bench", admin: .init(email: "admin@example.com", password: "Admin123!"), port: 0, passwordHashIterations: 1_000))
        self.emulator = emulator
        let selfdb = SelfDB(baseURL: emulator.baseURL, apiKey: "bench")
        try await selfdb.auth.login(email: "admin@example.com", password: "Admin123!")
        client = selfdb
        var request = URLRequest(url: emulator.baseURL.appendingPathComponent("users/me"))
        request.setValue("bench", forHTTPHeaderField: "X-API-Key")
        request.setValue("application/json", forHTTPHeaderField: "Accept")
        if let token = await selfdb.session?.accessToken {
            request.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization")
        }
        bareRequest = request
    }
}

enum RowsFixture {
    /// A JSON array of rows as SelfDB returns them (timestamps with fractions and `Z`).
    static func json(count: Int) -> Data {
        var text = "["
        for index in 0..<count {
            if index > 0 { text += "," }
            let id = UUID().uuidString.lowercased()
            text += #"{"id":"\#(id)","title":"Row \#(index)","done":\#(index % 2 == 0),"priority":\#(index % 5),"score":\#(Double(index) / 7),"created_at":"2024-05-01T10:00:\#(String(format: "%02d", index % 60)).123456Z","notes":null}"#
        }
        return Data((text + "]").utf8)
    }
}

import Benchmark
import Foundation
import SelfDBEmulator
import SelfDBRuntime
import SelfDBTesting

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// What a write costs on each transport, on loopback and through a proxy that adds a 50 ms
/// round trip (to every exchange, and to every new connection for its handshake): a row
/// inserted on a kept-alive connection (`CurlTransport`, which now refuses libcurl's resend of
/// a write instead of opening a connection per write), on a new connection each time (what a
/// transport that cannot refuse the resend pays: the fallback for libcurl before 7.80), and
/// through `URLSessionTransport` (on Linux a connection per request).
let benchmarks: @Sendable () -> Void = {
    Benchmark.defaultConfiguration = .init(metrics: [.wallClock], maxDuration: .seconds(5), maxIterations: 1_000)

    for (label, roundTrip, iterations) in [("loopback", Duration.zero, 1_000), ("50 ms round trip", Duration.milliseconds(50), 30)] {
        let configuration = Benchmark.Configuration(maxDuration: .seconds(10), maxIterations: iterations)

        // The transports live as long as the server: the benchmark's closure runs once a sample,
        // and a transport made in it would start on a new connection every time.
        Benchmark("Insert a row, \(label): CurlTransport, kept-alive connection", configuration: configuration) { benchmark, server in
            for _ in benchmark.scaledIterations {
                blackHole(try? await server.curl.send(server.insertRequest()))
            }
        } setup: {
            try await WriteServer.shared(roundTrip: roundTrip)
        }

        Benchmark("Insert a row, \(label): a new connection per write", configuration: configuration) { benchmark, server in
            for _ in benchmark.scaledIterations {
                // A transport of its own has no connection to reuse.
                blackHole(try? await CurlTransport().send(server.insertRequest()))
            }
        } setup: {
            try await WriteServer.shared(roundTrip: roundTrip)
        }

        Benchmark("Insert a row, \(label): URLSessionTransport", configuration: configuration) { benchmark, server in
            for _ in benchmark.scaledIterations {
                blackHole(try? await server.urlSession.send(server.insertRequest()))
            }
        } setup: {
            try await WriteServer.shared(roundTrip: roundTrip)
        }
    }
}

/// An emulator with a signed-in user and a table, behind a fault proxy with no faults and the
/// given round trip; one per round trip for the whole run.
final class WriteServer: Sendable {
    static let servers = ServerCache()

    let proxy: FaultProxy
    let emulator: SelfDBEmulator
    let tableID: String
    let token: String
    let userID: String
    let curl = CurlTransport()
    let urlSession = URLSessionTransport()

    init(proxy: FaultProxy, emulator: SelfDBEmulator, tableID: String, token: String, userID: String) {
        (self.proxy, self.emulator, self.tableID, self.token, self.userID) = (proxy, emulator, tableID, token, userID)
    }

    static func shared(roundTrip: Duration) async throws -> WriteServer {
        try await servers.server(roundTrip: roundTrip)
    }

    /// `POST /tables/{id}/data` of a new row, through the proxy.
    func insertRequest() -> URLRequest {
        var request = URLRequest(url: proxy.baseURL.appendingPathComponent("tables/\(tableID)/data"))
        request.httpMethod = "POST"
        request.setValue(WriteServer.apiKey, forHTTPHeaderField: "X-API-Key")
        request.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization")
        request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        request.httpBody = Data(#"{"id":"\#(UUID().uuidString)","title":"a write","user_id":"\#(userID)"}"#.utf8)
        return request
    }

    static let apiKey = "transport-bench-key"
}

actor ServerCache {
    private var servers: [Duration: WriteServer] = [:]

    func server(roundTrip: Duration) async throws -> WriteServer {
        if let server = servers[roundTrip] { return server }
        let emulator = try await SelfDBEmulator.start(.init(apiKey: WriteServer.apiKey, port: 0, passwordHashIterations: 1_000))
        let direct = SetupCalls(baseURL: emulator.baseURL)
        let (token, userID) = try await direct.signUp()
        let tableID = try await direct.createTable(token: token)
        let server = WriteServer(proxy: try FaultProxy(upstream: emulator.baseURL, roundTrip: roundTrip), emulator: emulator, tableID: tableID, token: token, userID: userID)
        servers[roundTrip] = server
        return server
    }
}

/// The few JSON calls the setup makes, straight to the emulator.
struct SetupCalls {
    let baseURL: URL
    let transport = CurlTransport()

    func call(_ method: String, _ path: String, token: String? = nil, body: [String: Any]) async throws -> [String: Any] {
        var request = URLRequest(url: baseURL.appendingPathComponent(path))
        request.httpMethod = method
        request.setValue(WriteServer.apiKey, forHTTPHeaderField: "X-API-Key")
        request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        if let token { request.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization") }
        request.httpBody = try JSONSerialization.data(withJSONObject: body)
        let (data, _) = try await transport.send(request)
        return (try JSONSerialization.jsonObject(with: data) as? [String: Any]) ?? [:]
    }

    func signUp() async throws -> (token: String, userID: String) {
        let email = "bench-\(UUID().uuidString.prefix(8).lowercased())@example.com"
        let user = try await call("POST", "users/", body: ["email": email, "password": "Password123", "firstName": "B", "lastName": "B"])
        let tokens = try await call("POST", "users/token", body: ["email": email, "password": "Password123"])
        return (tokens["access_token"] as? String ?? "", user["id"] as? String ?? "")
    }

    func createTable(token: String) async throws -> String {
        let schema: [String: Any] = [
            "id": ["type": "uuid", "nullable": false], "title": ["type": "text", "nullable": false], "user_id": ["type": "uuid", "nullable": true],
        ]
        let table = try await call("POST", "tables/", token: token, body: ["name": "bench_writes", "table_schema": schema, "public": false])
        return table["id"] as? String ?? ""
    }
}

#if os(Linux)
import Foundation
import FoundationNetworking
import SelfDBEmulator
import SelfDBRuntime
import Testing

/// The Linux transport over libcurl, against the emulator on loopback: what the clients rely
/// on from `URLSession` (responses for HTTP errors, bodies both ways, headers, the errors and
/// cancellation of a failed request).
@Suite("libcurl transport")
struct CurlTransportTests {
    static func withEmulator(latency: Duration = .zero, _ body: (URL) async throws -> Void) async throws {
        let emulator = try await SelfDBEmulator.start(
            .init(apiKey: ClientFixture.apiKey, port: 0, passwordHashIterations: 1_000, responseLatency: latency)
        )
        do {
            try await body(emulator.baseURL)
        } catch {
            await emulator.stop()
            throw error
        }
        await emulator.stop()
    }

    static func request(_ url: URL, _ path: String, method: String = "GET", body: Data? = nil) -> URLRequest {
        var request = URLRequest(url: url.appendingPathComponent(path))
        request.httpMethod = method
        request.httpBody = body
        request.setValue(ClientFixture.apiKey, forHTTPHeaderField: "X-API-Key")
        if body != nil { request.setValue("application/json", forHTTPHeaderField: "Content-Type") }
        return request
    }

    @Test func answersAndHTTPErrorsComeBackAsResponses() async throws {
        try await Self.withEmulator { url in
            let transport = CurlTransport()
            // 200 only with the X-API-Key header: the request's headers went out.
            let (status, ok) = try await transport.send(Self.request(url, "system/status"))
            #expect(ok.statusCode == 200)
            #expect(ok.value(forHTTPHeaderField: "content-type")?.hasPrefix("application/json") == true)
            let object = try JSONSerialization.jsonObject(with: status) as? [String: Any]
            #expect(object?["version"] as? String != nil)
            // A wrong password: the server's 401 and its JSON body, not a thrown error.
            let login = try JSONSerialization.data(withJSONObject: ["email": "nobody@example.com", "password": "wrong"])
            let (detail, refused) = try await transport.send(Self.request(url, "users/token", method: "POST", body: login))
            #expect(refused.statusCode == 401)
            #expect(String(decoding: detail, as: UTF8.self).contains("detail"))
            // Requests in a row reuse the handle and its connection.
            for _ in 0..<20 { #expect(try await transport.send(Self.request(url, "system/status")).1.statusCode == 200) }
        }
    }

    @Test func aLargeBodyGoesOutWholeAndRequestsRunSideBySide() async throws {
        try await Self.withEmulator { url in
            let transport = CurlTransport()
            // 2 MB of JSON: far more than one socket buffer.
            let password = String(repeating: "p", count: 2_000_000)
            let body = try JSONSerialization.data(withJSONObject: ["email": "big@example.com", "password": password])
            let results = try await withThrowingTaskGroup(of: Int.self) { group in
                for _ in 0..<4 { group.addTask { try await transport.send(Self.request(url, "users/token", method: "POST", body: body)).1.statusCode } }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            #expect(results.count == 4)
            // 401: the server read the whole JSON and checked the credentials (a cut body is a
            // 422 for JSON it cannot parse).
            #expect(results == [401, 401, 401, 401], "\(results)")
        }
    }

    /// Each transfer blocks a thread while it waits: twelve waiting at once must all be on the
    /// wire together (the emulator holds every answer until twelve are being answered), not
    /// queued behind as many threads as there are cores.
    @Test func manyTransfersWaitForTheirAnswersAtOnce() async throws {
        let emulator = try await SelfDBEmulator.start(.init(apiKey: ClientFixture.apiKey, port: 0, passwordHashIterations: 1_000))
        emulator.holdAnswers(method: "GET", path: "/system/status", untilAtOnce: 12, timeout: .seconds(4))
        let transport = CurlTransport()
        let url = emulator.baseURL
        let statuses = await withTaskGroup(of: Int?.self) { group in
            for _ in 0..<12 { group.addTask { try? await transport.send(Self.request(url, "system/status")).1.statusCode } }
            return await group.reduce(into: []) { $0.append($1) }
        }
        #expect(statuses == Array(repeating: 200, count: 12))
        #expect(emulator.mostRequestsAtOnce(method: "GET", path: "/system/status") == 12)
        await emulator.stop()
    }

    @Test func aClosedPortIsCannotConnect() async throws {
        // A port that was just free: bound, then closed.
        let url = try #require(URL(string: "http://127.0.0.1:\(try Self.closedPort())"))
        await Self.expectURLError(.cannotConnectToHost) { try await CurlTransport().send(URLRequest(url: url)) }
    }

    @Test func anUnsupportedSchemeIsRefused() async throws {
        let url = try #require(URL(string: "file:///etc/hostname"))
        await Self.expectURLError(.unsupportedURL) { try await CurlTransport().send(URLRequest(url: url)) }
    }

    @Test func cancellingTheTaskAbortsTheTransfer() async throws {
        // The server answers after 5 s: `cancelled` instead of its 200 means the transfer was
        // aborted while it waited (a transfer that finished returns the response).
        try await Self.withEmulator(latency: .seconds(5)) { url in
            let transport = CurlTransport()
            let task = Task { try await transport.send(Self.request(url, "system/status")) }
            try await Task.sleep(for: .milliseconds(200))
            task.cancel()
            await Self.expectURLError(.cancelled) { _ = try await task.value }
        }
    }

    @Test func aServerSilentForLongerThanTheTimeoutTimesOut() async throws {
        try await Self.withEmulator(latency: .seconds(4)) { url in
            var request = Self.request(url, "system/status")
            request.timeoutInterval = 1
            await Self.expectURLError(.timedOut) { try await CurlTransport().send(request) }
        }
    }

    private static func expectURLError(_ code: URLError.Code, sourceLocation: SourceLocation = #_sourceLocation, _ body: () async throws -> Void) async {
        do {
            try await body()
            Issue.record("expected URLError(\(code.rawValue)), but nothing was thrown", sourceLocation: sourceLocation)
        } catch {
            #expect((error as? URLError)?.code == code, "expected URLError(\(code.rawValue)), got \(error)", sourceLocation: sourceLocation)
        }
    }

    private static func closedPort() throws -> Int {
        let socket = Foundation.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(socket) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(socket, $0, length) == 0 && getsockname(socket, $0, &length) == 0 }
        }
        guard bound else { throw URLError(.unknown) }
        return Int(UInt16(bigEndian: address.sin_port))
    }
}
#endif

import FlakyServerSupport
import Foundation
import SelfDB
import SelfDBEmulator
import SelfDBRuntime
import SelfDBTestSupport
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// What each transport does when the network fails, through the fault proxy in front of the
/// emulator: a request goes out once unless it is safe, and every failure says whether the
/// request may have reached the server. The emulator's request log counts what arrived.
@Suite("transports on a flaky network", .serialized)
struct TransportFaultTests {
    /// The transports an app can use here: libcurl's (the Linux default) and URLSession's.
    static var transports: [TransportKind] {
        #if canImport(CCurl)
        [.curl, .urlSession]
        #else
        [.urlSession]
        #endif
    }

    enum TransportKind: String, Sendable, CustomTestStringConvertible {
        case curl, urlSession
        var testDescription: String { rawValue }
        func make() -> any HTTPTransport {
            #if canImport(CCurl)
            if self == .curl { return CurlTransport() }
            #endif
            return URLSessionTransport()
        }
    }

    static func request(_ url: URL, _ path: String, method: String = "GET", json: [String: Any]? = nil) throws -> URLRequest {
        var request = URLRequest(url: url.appendingPathComponent(path))
        request.httpMethod = method
        request.setValue(FlakyServer.emulatorAPIKey, forHTTPHeaderField: "X-API-Key")
        if let json {
            request.httpBody = try JSONSerialization.data(withJSONObject: json)
            request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        }
        return request
    }

    /// A self-registration: a POST that creates a user each time it reaches the server.
    static func registration(_ url: URL, email: String) throws -> URLRequest {
        try request(url, "users/", method: "POST", json: ["email": email, "password": "Password123", "firstName": "A", "lastName": "B"])
    }

    static func arrived(_ emulator: SelfDBEmulator?, _ method: String, _ path: String) -> Int {
        emulator?.recordedRequests().filter { $0.method == method && $0.path == path }.count ?? 0
    }

    /// On a kept-alive connection (libcurl's), libcurl would send the POST again on a new one
    /// and the server would apply it twice; URLSession on Linux gives every request a
    /// connection of its own, so the same loss meets it on a fresh one.
    @Test(arguments: transports)
    func aPostWhoseAnswerIsLostAfterAnEarlierRequestFailsAsUnknownAndArrivesOnce(_ kind: TransportKind) async throws {
        try await FlakyServer.run(.emulator) { server in
            let transport = kind.make()
            // A first request leaves a kept-alive connection for the POST to reuse.
            _ = try await transport.send(Self.request(server.proxy.baseURL, "system/status"))
            server.proxy.add(FaultRule(.loseAnswer, method: "POST", pathPrefix: "/users/"))
            do {
                _ = try await transport.send(Self.registration(server.proxy.baseURL, email: "once@example.com"))
                Issue.record("the lost answer was not reported")
            } catch {
                #expect(RequestDelivery(of: error) == .unknown, "\(error)")
            }
            let posts = server.proxy.requests("POST", pathPrefix: "/users/")
            #expect(posts.count == 1)
            #if canImport(FoundationNetworking)
            #expect(posts.first?.reusedConnection == (kind == .curl))
            #endif
            #expect(Self.arrived(server.emulator, "POST", "/users/") == 1)
        }
    }

    @Test(arguments: transports)
    func aPostWhoseAnswerIsLostOnAFreshConnectionFailsAsUnknownAndArrivesOnce(_ kind: TransportKind) async throws {
        try await FlakyServer.run(.emulator) { server in
            let transport = kind.make()
            server.proxy.add(FaultRule(.loseAnswer, method: "POST", pathPrefix: "/users/", connection: .fresh))
            do {
                _ = try await transport.send(Self.registration(server.proxy.baseURL, email: "fresh@example.com"))
                Issue.record("the lost answer was not reported")
            } catch {
                #expect(RequestDelivery(of: error) == .unknown, "\(error)")
            }
            #expect(Self.arrived(server.emulator, "POST", "/users/") == 1)
        }
    }

    @Test(arguments: transports)
    func aCutAnswerFailsAsUnknown(_ kind: TransportKind) async throws {
        try await FlakyServer.run(.emulator) { server in
            let transport = kind.make()
            server.proxy.add(FaultRule(.cutAnswer(fraction: 0.5), method: "POST", pathPrefix: "/users/"))
            do {
                _ = try await transport.send(Self.registration(server.proxy.baseURL, email: "cut@example.com"))
                Issue.record("the cut answer was not reported")
            } catch {
                #expect(RequestDelivery(of: error) == .unknown, "\(error)")
            }
            #expect(Self.arrived(server.emulator, "POST", "/users/") == 1)
        }
    }

    @Test(arguments: transports)
    func aRefusedConnectionIsNotSent(_ kind: TransportKind) async throws {
        // A port bound and not listening refuses every connection.
        let closed = try ClosedPort()
        do {
            _ = try await kind.make().send(Self.registration(closed.baseURL, email: "refused@example.com"))
            Issue.record("a refused connection succeeded")
        } catch {
            #expect(RequestDelivery(of: error) == .notSent, "\(error)")
        }
    }

    @Test(arguments: transports)
    func aResetBeforeTheRequestNeverReachesTheServer(_ kind: TransportKind) async throws {
        try await FlakyServer.run(.emulator) { server in
            server.proxy.add(FaultRule(.resetBeforeRequest, method: "POST", pathPrefix: "/users/"))
            do {
                _ = try await kind.make().send(Self.registration(server.proxy.baseURL, email: "reset@example.com"))
                Issue.record("a reset connection succeeded")
            } catch {
                // The request was written before the reset arrived: the client cannot know that
                // the server never saw it, and must not claim it did not.
                #expect(RequestDelivery(of: error) == .unknown, "\(error)")
            }
            #expect(Self.arrived(server.emulator, "POST", "/users/") == 0)
        }
    }

    #if canImport(CCurl)
    @Test func aSafeRequestWhoseAnswerIsLostOnAKeptAliveConnectionIsSentAgainByLibcurl() async throws {
        try await FlakyServer.run(.emulator) { server in
            let transport = CurlTransport()
            _ = try await transport.send(Self.request(server.proxy.baseURL, "system/status"))
            server.proxy.add(FaultRule(.loseAnswer, method: "GET", pathPrefix: "/system/status", connection: .reused))
            let (_, response) = try await transport.send(Self.request(server.proxy.baseURL, "system/status"))
            #expect(response.statusCode == 200)
            #expect(server.proxy.requests("GET", pathPrefix: "/system/status").count == 3)
        }
    }
    #endif

    @Test(arguments: transports)
    func aCancelledRequestReturnsBeforeItsSlowAnswer(_ kind: TransportKind) async throws {
        try await FlakyServer.run(.emulator) { server in
            let transport = kind.make()
            server.proxy.add(FaultRule(.delayAnswer(seconds: 3), method: "GET", pathPrefix: "/system/status"))
            let url = server.proxy.baseURL
            let call = Task { try await transport.send(Self.request(url, "system/status")) }
            let reached = try await waitUntil { Self.arrived(server.emulator, "GET", "/system/status") == 1 }
            #expect(reached)
            call.cancel()
            let result = await call.result
            // Back before the proxy let the answer go (it holds it for 3 s after the server answered).
            #expect(server.proxy.requests("GET", pathPrefix: "/system/status").first?.delivered == false)
            switch result {
            case .success: Issue.record("the cancelled request returned its answer")
            case .failure(let error): #expect(APIClient.isCancellation(error) || (error as? URLError)?.code == .cancelled, "\(error)")
            }
        }
    }
}

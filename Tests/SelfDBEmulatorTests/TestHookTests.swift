import Foundation
import Testing

@testable import SelfDBEmulator

@Suite("In-process test hooks")
struct TestHookTests {
    @Test func requestLogCountsByMethodAndPath() async throws {
        try await withEmulator { emulator, client in
            let session = try await client.login(Fixture.adminEmail, Fixture.adminPassword)
            emulator.resetRecordedRequests()
            _ = try await client.send("POST", "/users/token/refresh", json: ["refresh_token": .string(session.refresh)])
            _ = try await client.send("GET", "/users/me", token: session.access)
            _ = try await client.send("GET", "/tables/", query: [("limit", "1")])
            #expect(emulator.requestCount(method: "POST", path: "/users/token/refresh") == 1)
            #expect(emulator.requestCount(method: "get", path: "/users/me") == 1)
            let log = emulator.recordedRequests()
            #expect(log.map(\.status) == [200, 200, 200])
            #expect(log.last?.query == "limit=1")
        }
    }

    @Test func injectedFaultsAnswerTheNextMatchingRequests() async throws {
        try await withEmulator { emulator, client in
            let token = try await client.adminToken()
            emulator.injectFault(.serviceUnavailable(retryAfter: 2), method: "GET", path: "/users/me", count: 2)
            let first = try await client.send("GET", "/users/me", token: token)
            #expect(first.status == 503)
            #expect(first.header("retry-after") == "2")
            #expect(first.detail == "Service Unavailable")
            #expect(try await client.send("GET", "/tables/").status == 200)  // other paths unaffected
            #expect(try await client.send("GET", "/users/me", token: token).status == 503)
            #expect(try await client.send("GET", "/users/me", token: token).status == 200)

            emulator.injectFault(.tooManyRequests(retryAfter: 1), method: "POST", path: "/users/token")
            let limited = try await client.send("POST", "/users/token", json: ["email": "x@y.z", "password": "whatever1"])
            #expect(limited.status == 429)
            #expect(limited.header("retry-after") == "1")
            #expect(emulator.requestCount(method: "GET", path: "/users/me") == 3)

            emulator.injectFault(.internalServerError, method: "GET", path: "/tables/", count: 5)
            emulator.clearFaults()
            #expect(try await client.send("GET", "/tables/").status == 200)
        }
    }
}

import FlakyServerSupport
import Foundation
import SelfDBRuntime
import SelfDBTesting
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The fault proxy's own promises, which the flaky-network tests build on.
@Suite("the fault proxy", .serialized)
struct FaultProxyTests {
    static func status(_ proxy: FaultProxy, transport: any HTTPTransport) async throws -> Int {
        var request = URLRequest(url: proxy.baseURL.appendingPathComponent("system/status"))
        request.setValue(FlakyServer.emulatorAPIKey, forHTTPHeaderField: "X-API-Key")
        return try await transport.send(request).1.statusCode
    }

    @Test func offlineRefusesConnectionsAndOnlineServesOnTheSamePort() async throws {
        try await FlakyServer.run(.emulator) { server in
            let transport = platformHTTPTransport()
            #expect(try await Self.status(server.proxy, transport: transport) == 200)
            server.proxy.goOffline()
            do {
                _ = try await Self.status(server.proxy, transport: transport)
                Issue.record("an offline proxy answered")
            } catch {
                #expect(RequestDelivery(of: error) == .notSent, "\(error)")
            }
            try server.proxy.goOnline()
            #expect(try await Self.status(server.proxy, transport: transport) == 200)
            #expect(server.proxy.requests("GET", pathPrefix: "/system/status").count == 2)
        }
    }

    /// The same seed picks the same requests, so a failing run can be replayed.
    @Test func aSeedFixesWhichRequestsAProbabilityPicks() async throws {
        func picks(seed: UInt64) async throws -> [Bool] {
            var picked: [Bool] = []
            try await FlakyServer.run(.emulator, seed: seed) { server in
                server.proxy.add(FaultRule(.serviceUnavailable(), method: "GET", pathPrefix: "/system/status", trigger: .probability(0.5)))
                let transport = platformHTTPTransport()
                for _ in 0..<30 { picked.append(try await Self.status(server.proxy, transport: transport) == 503) }
                #expect(server.proxy.faultsApplied == picked.filter { $0 }.count)
            }
            return picked
        }
        let first = try await picks(seed: 7)
        #expect(try await picks(seed: 7) == first)
        #expect(first.contains(true) && first.contains(false))
    }

    /// A cut answer keeps the head and part of the body: the client sees a short body.
    @Test func aCutAnswerEndsBeforeItsLength() async throws {
        try await FlakyServer.run(.emulator) { server in
            server.proxy.add(FaultRule(.cutAnswer(fraction: 0.5), method: "GET", pathPrefix: "/system/status"))
            do {
                _ = try await Self.status(server.proxy, transport: platformHTTPTransport())
                Issue.record("a cut answer was taken whole")
            } catch {
                #expect(RequestDelivery(of: error) == .unknown, "\(error)")
            }
            #expect(server.proxy.requests.first?.status == 200)
            #expect(server.proxy.requests.first?.delivered == false)
        }
    }
}

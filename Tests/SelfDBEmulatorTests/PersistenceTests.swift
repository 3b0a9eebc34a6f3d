import Foundation
import Testing

@testable import SelfDBEmulator

@Suite("Restart persistence")
struct PersistenceTests {
    @Test func dataSurvivesRestartOnSameDirectoryAndPort() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("selfdb-persist-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let configuration = SelfDBEmulator.Configuration(
            dataDirectory: directory,
            apiKey: Fixture.apiKey,
            admin: .init(email: Fixture.adminEmail, password: Fixture.adminPassword),
            passwordHashIterations: 1_000
        )

        let first = try await SelfDBEmulator.start(configuration)
        let port = first.port
        let client = APIClient(baseURL: first.baseURL)
        let admin = try await client.login(Fixture.adminEmail, Fixture.adminPassword)
        let user = try await client.newUser("persist@example.com")
        let table = try await client.newTable("kept", schema: ["note": ["type": "text"]], public: true, token: admin.access)
        _ = try await client.send("POST", "/tables/\(table)/data", json: ["note": "still here"], token: admin.access)
        let bucket = try await client.newBucket("kept-files", public: true, token: admin.access)
        _ = try await client.send("POST", "/storage/files/upload", query: [("bucket_id", bucket), ("filename", "k.txt")], raw: Array("bytes".utf8), token: admin.access)
        await first.stop()
        #expect((try? await client.send("GET", "/tables/")) == nil)

        var again = configuration
        again.port = port
        let second = try await SelfDBEmulator.start(again)
        #expect(second.port == port)
        // Tokens survive too: the signing key is stored with the data.
        #expect(try await client.send("GET", "/users/me", token: admin.access).status == 200)
        #expect(try await client.send("GET", "/users/\(user.id)", token: user.token).json?["email"] == "persist@example.com")
        #expect(try await client.send("GET", "/tables/\(table)/data").json?["data"]?.arrayValue?.first?["note"] == "still here")
        #expect(try await client.send("GET", "/storage/files/download/kept-files/k.txt").text == "bytes")
        #expect(try await client.send("POST", "/users/token/refresh", json: ["refresh_token": .string(admin.refresh)]).status == 200)
        #expect(try await client.send("GET", "/users/count", token: admin.access).json == 2)
        await second.stop()
    }

    @Test func startingOnABusyPortFails() async throws {
        let first = try await SelfDBEmulator.start(.init(apiKey: Fixture.apiKey, passwordHashIterations: 1_000))
        await #expect(throws: SelfDBEmulator.StartError.self) {
            _ = try await SelfDBEmulator.start(.init(apiKey: Fixture.apiKey, port: first.port, passwordHashIterations: 1_000))
        }
        await first.stop()
    }

    @Test func temporaryDirectoryIsRemovedOnStop() async throws {
        let emulator = try await SelfDBEmulator.start(.init(apiKey: Fixture.apiKey, passwordHashIterations: 1_000))
        let directory = emulator.dataDirectory
        #expect(FileManager.default.fileExists(atPath: directory.path))
        await emulator.stop()
        await emulator.stop()  // idempotent
        #expect(!FileManager.default.fileExists(atPath: directory.path))
    }
}

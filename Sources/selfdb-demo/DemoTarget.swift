import Foundation
import SelfDBEmulator

/// Where the demo runs: a real SelfDB named by `SELFDB_URL` and `SELFDB_API_KEY`, or an
/// emulator started in this process on a free loopback port.
struct DemoTarget {
    let baseURL: URL
    let apiKey: String
    let emulator: SelfDBEmulator?

    static func start() async throws -> DemoTarget {
        let environment = ProcessInfo.processInfo.environment
        if let url = environment["SELFDB_URL"].flatMap(URL.init(string:)), let key = environment["SELFDB_API_KEY"] {
            print("Using the SelfDB server at \(url)")
            return DemoTarget(baseURL: url, apiKey: key, emulator: nil)
        }
        let apiKey = "demo-api-key"
        let emulator = try await SelfDBEmulator.start(.init(
            dataDirectory: nil,
            apiKey: apiKey,
            admin: .init(email: "admin@example.com", password: "Admin123!"),
            port: 0
        ))
        print("Started the embedded SelfDB emulator at \(emulator.baseURL) (set SELFDB_URL and SELFDB_API_KEY to use a real server)")
        return DemoTarget(baseURL: emulator.baseURL, apiKey: apiKey, emulator: emulator)
    }

    func stop() async {
        await emulator?.stop()
    }
}

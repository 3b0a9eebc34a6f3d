import Foundation
import SelfDBEmulator

/// Where the demo runs: a real SelfDB named by `SELFDB_URL` and `SELFDB_API_KEY`, or an
/// emulator started in this process on a free loopback port.
@MainActor
final class DemoTarget {
    let baseURL: URL
    let apiKey: String
    private(set) var emulator: SelfDBEmulator?
    /// The embedded emulator's data, kept across `stopServer()` and `restartServer()`.
    private let dataDirectory: URL?

    init(baseURL: URL, apiKey: String, emulator: SelfDBEmulator?, dataDirectory: URL? = nil) {
        self.baseURL = baseURL
        self.apiKey = apiKey
        self.emulator = emulator
        self.dataDirectory = dataDirectory
    }

    static func start() async throws -> DemoTarget {
        let environment = ProcessInfo.processInfo.environment
        if let url = environment["SELFDB_URL"].flatMap(URL.init(string:)), let key = environment["SELFDB_API_KEY"] {
            print("Using the SelfDB server at \(url)")
            return DemoTarget(baseURL: url, apiKey: key, emulator: nil)
        }
        let apiKey = "demo-api-key"
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("selfdb-demo-\(UUID().uuidString)", isDirectory: true)
        let emulator = try await SelfDBEmulator.start(emulatorConfiguration(apiKey: apiKey, directory: directory, port: 0))
        print("Started the embedded SelfDB emulator at \(emulator.baseURL) (set SELFDB_URL and SELFDB_API_KEY to use a real server)")
        return DemoTarget(baseURL: emulator.baseURL, apiKey: apiKey, emulator: emulator, dataDirectory: directory)
    }

    private static func emulatorConfiguration(apiKey: String, directory: URL, port: Int) -> SelfDBEmulator.Configuration {
        .init(dataDirectory: directory, apiKey: apiKey, admin: .init(email: "admin@example.com", password: "Admin123!"), port: port)
    }

    /// Whether the server can be stopped and restarted (the embedded emulator can; a real server cannot).
    var canStopServer: Bool { emulator != nil }

    /// Stops the embedded emulator, keeping its data.
    func stopServer() async {
        await emulator?.stop()
    }

    /// Starts the embedded emulator again on the same port with the same data.
    func restartServer() async throws {
        guard let old = emulator, let dataDirectory else { return }
        emulator = try await SelfDBEmulator.start(Self.emulatorConfiguration(apiKey: apiKey, directory: dataDirectory, port: old.port))
    }

    func stop() async {
        await emulator?.stop()
        if let dataDirectory { try? FileManager.default.removeItem(at: dataDirectory) }
    }
}

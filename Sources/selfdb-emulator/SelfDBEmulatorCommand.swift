import ArgumentParser
import Foundation
import SelfDBEmulator

/// `selfdb-emulator`: a local SelfDB v0.0.5 you can curl.
@main
struct SelfDBEmulatorCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "selfdb-emulator",
        abstract: "Serve a local SelfDB (v0.0.5 wire protocol) on 127.0.0.1, backed by SQLite."
    )

    @Option(help: "TCP port on 127.0.0.1 (0 picks a free one).")
    var port: Int = 8000

    @Option(help: "Directory for the SQLite database and uploaded files; created if missing.")
    var dataDir: String = "./selfdb-data"

    @Option(help: "The API key clients must send in X-API-Key.")
    var apiKey: String = "selfdb-dev-key"

    @Option(help: "Email of the admin account to create on start (with --admin-password).")
    var adminEmail: String = "admin@example.com"

    @Option(help: "Password of the admin account.")
    var adminPassword: String = "Admin123!"

    @Option(help: "Access-token lifetime in seconds.")
    var accessTokenLifetime: Double = 1800

    @Option(help: "PBKDF2 iterations for new password hashes.")
    var passwordHashIterations: Int = 10_000

    @Option(help: ArgumentHelp("A spec whose 'sync:' tables the Synchro server serves on /sync/* (repeatable).", valueName: "file.yaml"))
    var syncSpec: [String] = []

    @Option(help: ArgumentHelp("Also accept HS256 JWTs signed with this secret on /sync/* (user id = sub).", valueName: "secret"))
    var syncJwtSecret: String?

    @Option(help: ArgumentHelp("Answer 426 on /sync/* to an X-App-Version below this semantic version.", valueName: "version"))
    var syncMinAppVersion: String?

    @Option(help: ArgumentHelp("The Synchro protocol /sync/* speaks: 2 (Synchro 0.3, today's servers) or 1 (Synchro 0.1).", valueName: "1|2"))
    var syncProtocol: Int = 2

    @Flag(
        help: ArgumentHelp(
            "Protocol 2: answer a pushed value the database would refuse with that mutation's validation_failed, instead of rolling the whole batch back with a 500 as Synchro 0.3.0 does."
        )
    )
    var syncRejectMutation = false

    @Option(help: ArgumentHelp("Delay every response by this many milliseconds.", valueName: "ms"))
    var latencyMs: Int = 0

    @Flag(help: "Do not log requests.")
    var quiet = false

    func validate() throws {
        guard (0...65535).contains(port) else { throw ValidationError("--port must be between 0 and 65535") }
        guard !apiKey.isEmpty else { throw ValidationError("--api-key must not be empty") }
        guard passwordHashIterations > 0 else { throw ValidationError("--password-hash-iterations must be positive") }
        guard latencyMs >= 0 else { throw ValidationError("--latency-ms must not be negative") }
        guard SyncProtocol(rawValue: syncProtocol) != nil else {
            throw ValidationError("--sync-protocol must be 1 or 2, not \(syncProtocol)")
        }
    }

    private var protocolChoice: SyncProtocol { SyncProtocol(rawValue: syncProtocol) ?? .two }

    func run() async throws {
        let quiet = self.quiet
        let configuration = SelfDBEmulator.Configuration(
            dataDirectory: URL(fileURLWithPath: dataDir, isDirectory: true).standardizedFileURL,
            apiKey: apiKey,
            admin: .init(email: adminEmail, password: adminPassword),
            port: port,
            accessTokenLifetime: accessTokenLifetime,
            passwordHashIterations: passwordHashIterations,
            requestHandler: { request, duration in
                guard !quiet else { return }
                let milliseconds = Double(duration.components.attoseconds) / 1e15 + Double(duration.components.seconds) * 1000
                let line = "\(request.method) \(request.path) \(request.status) \(String(format: "%.1f", milliseconds))ms\n"
                FileHandle.standardOutput.write(Data(line.utf8))
            },
            syncSpecs: syncSpec.map { URL(fileURLWithPath: $0).standardizedFileURL },
            syncJWTSecret: syncJwtSecret,
            syncMinimumAppVersion: syncMinAppVersion,
            syncProtocol: protocolChoice,
            syncPushWriteErrors: syncRejectMutation ? .rejectMutation : .rollBackBatch,
            responseLatency: .milliseconds(latencyMs)
        )
        let emulator = try await SelfDBEmulator.start(configuration)
        let banner = """
            SelfDB emulator listening on \(emulator.baseURL.absoluteString)
              data directory: \(emulator.dataDirectory.path)
              API key:        \(apiKey)
              admin:          \(adminEmail)
              realtime:       \(emulator.realtimeURL.absoluteString)?X-API-Key=\(apiKey)
            \(syncBanner(emulator))
            """
        FileHandle.standardOutput.write(Data(banner.utf8))
        await waitForTermination()
        FileHandle.standardOutput.write(Data("Stopping...\n".utf8))
        await emulator.stop()
    }

    /// The sync server's line of the banner (empty line when sync is off).
    private func syncBanner(_ emulator: SelfDBEmulator) -> String {
        guard let schema = emulator.syncSchema else { return "" }
        return "  sync:           \(emulator.baseURL.absoluteString)/sync (tables: \(schema.tables.joined(separator: ", ")); schema v\(schema.version))\n"
    }

    /// Suspends until SIGINT or SIGTERM.
    private func waitForTermination() async {
        let (stream, continuation) = AsyncStream<Void>.makeStream()
        var sources: [any DispatchSourceSignal] = []
        for signalNumber in [SIGINT, SIGTERM] {
            signal(signalNumber, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: signalNumber, queue: .main)
            source.setEventHandler { continuation.yield() }
            source.resume()
            sources.append(source)
        }
        for await _ in stream { break }
        for source in sources { source.cancel() }
    }
}

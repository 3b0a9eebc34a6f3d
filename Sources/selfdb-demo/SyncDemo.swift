import Foundation
import SelfDB
import SelfDBEmulator
import SelfDBRuntime
import Synchro

/// The Synchro part of the demo: two devices of one user keep a local SQLite database in
/// sync through the emulator's Synchro server; one goes offline, both keep writing, and
/// they converge when it is back.
///
/// It always runs against an embedded emulator (SelfDB has no Synchro server of its own),
/// serving `Spec/Examples/tasks-sync.yaml`; the devices sign in with SelfDB accounts.
@MainActor
enum SyncDemo {
    static let spec = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Spec/Examples/tasks-sync.yaml")

    static func run() async throws {
        Demo.step("Synchro: an emulator serving the sync spec Spec/Examples/tasks-sync.yaml")
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("synchro-demo-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let emulator = try await SelfDBEmulator.start(
            .init(dataDirectory: directory.appendingPathComponent("server"), apiKey: "demo-api-key", syncSpecs: [spec])
        )
        print("  /sync/* on \(emulator.baseURL), Synchro protocol 2 (as Synchro 0.3 servers speak it)")
        do {
            try await twoDevices(emulator, directory: directory)
            await emulator.stop()
        } catch {
            await emulator.stop()
            throw error
        }
    }

    private static func twoDevices(_ emulator: SelfDBEmulator, directory: URL) async throws {

        // A SelfDB account; its access token is what the devices send to /sync/*.
        let selfdb = SelfDB(baseURL: emulator.baseURL, apiKey: "demo-api-key", logger: DemoLogger.logger)
        let email = "sync-\(UUID().uuidString.prefix(8).lowercased())@example.com"
        let user = try await selfdb.auth.users.create(payload: UserCreate(email: email, password: "DemoPass123!", firstName: "Sync", lastName: "Demo"))
        try await selfdb.auth.login(email: email, password: "DemoPass123!")
        let userId = user.id.uuidString.lowercased()
        let authProvider: @Sendable () async throws -> String = {
            guard let token = try await selfdb.apiClient.currentAccessToken() else { throw SelfDBError.authenticationError("signed out") }
            return token
        }

        func device(_ name: String, transport: OutageTransport) throws -> SynchroClient {
            let config = SynchroConfig(
                dbPath: directory.appendingPathComponent("\(name).sqlite").path,
                serverURL: emulator.baseURL,
                authProvider: authProvider,
                clientID: "\(name)-\(UUID().uuidString.prefix(8))",
                platform: "linux",
                appVersion: "1.0.0",
                maxRetryAttempts: 1,
                logger: DemoLogger.orSilent
            )
            return try SynchroClient(config: config, transport: transport)
        }
        let laptopNetwork = OutageTransport()
        let phone = try device("phone", transport: OutageTransport())
        let laptop = try device("laptop", transport: laptopNetwork)
        defer {
            try? phone.close()
            try? laptop.close()
        }
        try await phone.start()
        try await laptop.start()
        print("  phone and laptop started: connected, tables made from the server's manifest, their scope rebuilt")

        Demo.step("The phone writes plain SQL; the laptop syncs")
        let taskId = UUID().uuidString
        try phone.writeTransaction { db in
            try db.execute(sql: "INSERT INTO tasks (id, title, user_id) VALUES (?, ?, ?)", arguments: [taskId, "Review proposal", userId])
            try db.execute(
                sql: "INSERT INTO comments (id, task_id, body, status) VALUES (?, ?, ?, ?)",
                arguments: [UUID().uuidString, taskId, "Looks good", "open"]
            )
        }
        print("  phone: \(try phone.pendingChangeCount()) pending change(s)")
        try await phone.syncNow()
        try await laptop.syncNow()
        print("  laptop: \(titles(laptop))")

        Demo.step("The laptop goes offline; both keep writing")
        laptopNetwork.isDown = true
        try laptop.execute("UPDATE tasks SET done = 1 WHERE id = ?", params: [taskId])
        try laptop.execute("INSERT INTO tasks (id, title, user_id) VALUES (?, ?, ?)", params: [UUID().uuidString, "Written on a plane", userId])
        try phone.execute("INSERT INTO tasks (id, title, user_id) VALUES (?, ?, ?)", params: [UUID().uuidString, "Call Ada", userId])
        try await phone.syncNow()
        do {
            try await laptop.syncNow()
        } catch SynchroError.networkError {
            print("  laptop: offline, \(try laptop.pendingChangeCount()) change(s) wait (status \(laptop.status))")
        }

        Demo.step("Back online: both converge")
        laptopNetwork.isDown = false
        try await laptop.syncNow()
        try await phone.syncNow()
        let (onPhone, onLaptop) = (titles(phone), titles(laptop))
        print("  phone:  \(onPhone)")
        print("  laptop: \(onLaptop)")
        guard onPhone == onLaptop, try phone.pendingChangeCount() == 0, try laptop.pendingChangeCount() == 0 else {
            throw SynchroError.invalidResponse(message: "the devices did not converge")
        }
        print("  converged: \(onPhone.count) tasks on both, nothing pending")
    }

    private static func titles(_ client: SynchroClient) -> [String] {
        let rows = (try? client.query("SELECT title, done FROM tasks WHERE deleted_at IS NULL ORDER BY title")) ?? []
        return rows.map { row in (row["title"] as String? ?? "?") + ((row["done"] as Int64?) == 1 ? " ✓" : "") }
    }
}

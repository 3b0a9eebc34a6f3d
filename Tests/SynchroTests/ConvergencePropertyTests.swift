import Foundation
import SelfDBEmulator
import SelfDBRuntime
import SelfDBTestSupport
import Synchro
import Testing

/// Seeded random histories: 2–4 devices of one user and a device of another user insert,
/// update and delete tasks and comments, sync at random, go offline for a while, and live
/// through emulator restarts. After a final sync round every device of a user holds exactly
/// the server's live rows for that user — as a fresh device's snapshot shows them — and
/// nothing of the other user.
@Suite("Convergence property", .serialized)
struct ConvergencePropertyTests {
    /// `SYNCHRO_HISTORIES` overrides how many histories run (and `SYNCHRO_SEED` the first seed).
    static let histories = ProcessInfo.processInfo.environment["SYNCHRO_HISTORIES"].flatMap(Int.init) ?? 300
    static let firstSeed = ProcessInfo.processInfo.environment["SYNCHRO_SEED"].flatMap(UInt64.init) ?? 1

    @Test(arguments: SyncProtocol.allCases) func randomHistoriesConverge(_ syncProtocol: SyncProtocol) async throws {
        try await SyncWorld.run(configure: { $0.syncProtocol = syncProtocol }) { world in
            for seed in Self.firstSeed..<(Self.firstSeed + UInt64(Self.histories)) {
                var history = try History(seed: seed, world: world)
                do {
                    try await history.play()
                    try await history.check()
                } catch {
                    Issue.record("history \(seed) failed: \(error)\n\(history.log.joined(separator: "\n"))")
                    return
                }
                if !history.problems.isEmpty {
                    Issue.record("history \(seed) diverged:\n\(history.problems.joined(separator: "\n"))\n--- log\n\(history.log.joined(separator: "\n"))")
                    return
                }
                await history.close()
            }
        }
    }
}

/// One random history and its devices.
struct History {
    struct Device {
        var name: String
        var user: String
        var client: SynchroClient
        var transport: SwitchableTransport
    }

    var random: SplitMix64
    let world: SyncWorld
    let seed: UInt64
    let user: String
    let otherUser: String
    var devices: [Device] = []
    var log: [String] = []
    var problems: [String] = []

    init(seed: UInt64, world: SyncWorld) throws {
        self.seed = seed
        self.world = world
        random = SplitMix64(seed: seed)
        user = SyncWorld.newUser()
        otherUser = SyncWorld.newUser()
        let count = Int.random(in: 2...4, using: &random)
        for index in 0..<count {
            devices.append(try Self.device("h\(seed)-d\(index)", user: user, world: world))
        }
        devices.append(try Self.device("h\(seed)-other", user: otherUser, world: world))
    }

    static func device(_ name: String, user: String, world: SyncWorld) throws -> Device {
        let transport = SwitchableTransport()
        let token = world.emulator.syncAccessToken(forUser: user, lifetime: 86_400)
        let client = try SynchroClient(
            config: SynchroConfig(
                dbPath: world.directory.appendingPathComponent("\(name).sqlite").path,
                serverURL: world.emulator.baseURL,
                authProvider: { token },
                clientID: name,
                appVersion: "1.0.0",
                syncInterval: 3600,
                pushDebounce: 3600,
                maxRetryAttempts: 1,
                pullPageSize: 7,
                pushBatchSize: 5,
                snapshotPageSize: 6
            ),
            transport: transport
        )
        return Device(name: name, user: user, client: client, transport: transport)
    }

    mutating func play() async throws {
        for device in devices {
            try await device.client.start()
        }
        let steps = Int.random(in: 20...45, using: &random)
        for _ in 0..<steps {
            let index = Int.random(in: 0..<devices.count, using: &random)
            try await step(on: index)
        }
    }

    private mutating func step(on index: Int) async throws {
        let device = devices[index]
        let client = device.client
        let roll = Int.random(in: 0..<100, using: &random)
        let tasks = try client.query("SELECT id FROM tasks WHERE deleted_at IS NULL").map { $0["id"] as String }
        switch roll {
        case 0..<25:
            let id = Bool.random(using: &random) ? UUID().uuidString : UUID().uuidString.lowercased()
            let title = "t\(Int.random(in: 0..<1000, using: &random))"
            // Now and then the app names someone else as the owner; the server forces the
            // owner to the caller, and the device must end up with the server's value.
            let owner = Int.random(in: 0..<10, using: &random) == 0 ? (device.user == user ? otherUser : user) : device.user
            log.append("\(device.name): insert task \(id.prefix(8)) \(title)\(owner == device.user ? "" : " (claiming another owner)")")
            try client.execute("INSERT INTO tasks (id, title, user_id, done) VALUES (?, ?, ?, ?)", params: [id, title, owner, Bool.random(using: &random)])
        case 25..<45 where !tasks.isEmpty:
            let id = tasks[Int.random(in: 0..<tasks.count, using: &random)]
            let title = "u\(Int.random(in: 0..<1000, using: &random))"
            log.append("\(device.name): update \(id.prefix(8)) → \(title)")
            try client.execute("UPDATE tasks SET title = ?, priority = ? WHERE id = ?", params: [title, Int.random(in: 0..<9, using: &random), id])
        case 45..<53 where !tasks.isEmpty:
            let id = tasks[Int.random(in: 0..<tasks.count, using: &random)]
            let hard = Bool.random(using: &random)
            log.append("\(device.name): \(hard ? "DELETE" : "soft-delete") \(id.prefix(8))")
            if hard {
                try client.execute("DELETE FROM tasks WHERE id = ?", params: [id])
            } else {
                try client.execute("UPDATE tasks SET deleted_at = ? WHERE id = ?", params: [TimestampParser.format(Date()), id])
            }
        case 53..<63 where !tasks.isEmpty:
            let task = tasks[Int.random(in: 0..<tasks.count, using: &random)]
            log.append("\(device.name): comment on \(task.prefix(8))")
            try client.execute("INSERT INTO comments (id, task_id, body) VALUES (?, ?, ?)", params: [UUID().uuidString, task, "c\(Int.random(in: 0..<99, using: &random))"])
        case 63..<68:
            let offline = !device.transport.isOffline.current
            log.append("\(device.name): \(offline ? "goes offline" : "comes back")")
            device.transport.isOffline.withLock { $0 = offline }
        case 68..<70:
            log.append("emulator restarts")
            try await world.restartEmulator()
        default:
            log.append("\(device.name): sync\(device.transport.isOffline.current ? " (offline)" : "")")
            try await sync(client)
        }
    }

    /// A sync whose expected failures (offline, or a push the server refused for good) are
    /// part of the history.
    private func sync(_ client: SynchroClient) async throws {
        do {
            try await client.syncNow()
        } catch SynchroError.networkError {
        } catch SynchroError.pushRejected {
        }
    }

    mutating func check() async throws {
        for device in devices {
            device.transport.isOffline.withLock { $0 = false }
        }
        // Two rounds: everyone pushes, then everyone pulls what the others pushed.
        for _ in 0..<2 {
            for device in devices { try await sync(device.client) }
        }
        let truth = try await serverView(of: user, name: "h\(seed)-truth")
        let otherTruth = try await serverView(of: otherUser, name: "h\(seed)-other-truth")
        let counted = try world.emulator.syncedRowCount(table: "tasks", userID: user)
        if counted != truth.tasks.count {
            problems.append("the emulator counts \(counted) live tasks, a fresh device sees \(truth.tasks.count)")
        }
        for device in devices {
            let expected = device.user == user ? truth : otherTruth
            let seen = try View(device.client)
            if seen != expected {
                problems.append("\(device.name) differs from the server:\n  device: \(seen)\n  server: \(expected)")
            }
            if try device.client.pendingChangeCount() != 0 {
                problems.append("\(device.name) still has \(try device.client.pendingChangeCount()) pending change(s)")
            }
        }
        if !Set(truth.tasks.keys).isDisjoint(with: otherTruth.tasks.keys) {
            problems.append("the users share tasks")
        }
    }

    /// What the server holds for `user`, through a brand-new device's snapshot.
    private func serverView(of user: String, name: String) async throws -> View {
        let fresh = try Self.device(name, user: user, world: world)
        try await fresh.client.start()
        defer { try? fresh.client.close() }
        return try View(fresh.client)
    }

    func close() async {
        for device in devices { try? device.client.close() }
    }

    /// The live rows of a device, ids lower-cased.
    struct View: Equatable, CustomStringConvertible {
        var tasks: [String: String] = [:]
        var comments: [String: String] = [:]

        init(_ client: SynchroClient) throws {
            for row in try client.query("SELECT id, title, done, priority, user_id FROM tasks WHERE deleted_at IS NULL") {
                let id: String = row["id"]
                let done: Int64? = row["done"]
                let priority: Int64? = row["priority"]
                let title: String? = row["title"]
                tasks[id.lowercased()] = "\(title ?? "-")|\(done ?? -1)|\(priority ?? -1)|\((row["user_id"] as String?)?.lowercased() ?? "-")"
            }
            for row in try client.query("SELECT id, task_id, body FROM comments WHERE deleted_at IS NULL") {
                let id: String = row["id"]
                let task: String? = row["task_id"]
                comments[id.lowercased()] = "\(task?.lowercased() ?? "-")|\(row["body"] as String? ?? "-")"
            }
        }

        var description: String {
            "tasks \(tasks.sorted { $0.key < $1.key }.map { "\($0.key.prefix(8))=\($0.value)" }), comments \(comments.count)"
        }
    }
}

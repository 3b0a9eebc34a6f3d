import Foundation
import SelfDBEmulator
import SelfDBRuntime
import SelfDBTestSupport
import Synchro
import Testing

/// Seeded random histories: 2–4 devices of one user and a device of another user insert,
/// update and delete tasks and comments, sync at random, go offline for a while, and live
/// through emulator restarts. On protocol 2 they also share documents with each other (a
/// record in several users' scopes, through a scope query over the members), leave them, and
/// receive regions the server writes into a shared scope every client gets. After a final sync
/// round every device of a user holds exactly the server's live rows for that user — as a fresh
/// device's rebuild shows them — and nothing of the other user's own.
@Suite("Convergence property", .serialized)
struct ConvergencePropertyTests {
    /// How many histories run: 160 on protocol 2 (each longer: shared documents and regions),
    /// 100 on protocol 1, whose code has run these histories for several rounds (the suite's
    /// time on CI is mostly here). `SYNCHRO_HISTORIES` overrides both (and `SYNCHRO_SEED` the
    /// first seed): `SYNCHRO_HISTORIES=2000 swift test --filter ConvergencePropertyTests`.
    static func histories(_ syncProtocol: SyncProtocol) -> Int {
        ProcessInfo.processInfo.environment["SYNCHRO_HISTORIES"].flatMap(Int.init) ?? (syncProtocol == .two ? 160 : 100)
    }
    static let firstSeed = ProcessInfo.processInfo.environment["SYNCHRO_SEED"].flatMap(UInt64.init) ?? 1

    @Test(arguments: SyncProtocol.allCases) func randomHistoriesConverge(_ syncProtocol: SyncProtocol) async throws {
        try await SyncWorld.run(configure: {
            $0.syncProtocol = syncProtocol
            if syncProtocol == .two { $0.syncSpecs.append(SyncWorld.sharingSpec) }
        }) { world in
            for seed in Self.firstSeed..<(Self.firstSeed + UInt64(Self.histories(syncProtocol))) {
                var history = try History(seed: seed, world: world, sharing: syncProtocol == .two)
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
    /// Protocol 2's scopes beyond the user's own: shared documents and regions.
    let sharing: Bool
    let user: String
    let otherUser: String
    var devices: [Device] = []
    var log: [String] = []
    var problems: [String] = []

    /// The few regions the server writes, the same in every history: the shared scope does not
    /// grow with the number of histories.
    static let regions = (0..<3).map { String(format: "00000000-0000-4000-8000-%012d", $0) }

    init(seed: UInt64, world: SyncWorld, sharing: Bool) throws {
        self.seed = seed
        self.world = world
        self.sharing = sharing
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
        case 70..<85 where sharing:
            if try !share(roll: roll, on: device) {
                log.append("\(device.name): sync\(device.transport.isOffline.current ? " (offline)" : "")")
                try await sync(client)
            }
        default:
            log.append("\(device.name): sync\(device.transport.isOffline.current ? " (offline)" : "")")
            try await sync(client)
        }
    }

    /// Protocol 2's shared scopes: the server writes a region (scope `global`); a device
    /// starts a document with itself as member and, half the time, the other user too (members
    /// first, so the document's scope query finds them); a device edits a document it holds
    /// (its scopes are computed again: a member who left loses it); a device leaves a document.
    /// Returns false when the roll found nothing to act on.
    private mutating func share(roll: Int, on device: Device) throws -> Bool {
        let client = device.client
        let documents = try client.query("SELECT id FROM documents WHERE deleted_at IS NULL").map { $0["id"] as String }
        let memberships = try client.query("SELECT id FROM document_members WHERE deleted_at IS NULL AND user_id = ?", params: [device.user])
            .map { $0["id"] as String }
        switch roll {
        case 70..<73:
            let region = Self.regions[Int.random(in: 0..<Self.regions.count, using: &random)]
            let name = "r\(Int.random(in: 0..<1000, using: &random))"
            log.append("server: region \(region.suffix(2)) → \(name)")
            try world.emulator.writeSyncedRow(table: "regions", values: ["id": .string(region), "name": .string(name)])
        case 73..<78:
            let document = UUID().uuidString.lowercased()
            let withOther = Bool.random(using: &random)
            let title = "d\(Int.random(in: 0..<1000, using: &random))"
            let other = device.user == user ? otherUser : user
            log.append("\(device.name): document \(document.prefix(8))\(withOther ? " shared with the other user" : "")")
            try client.writeTransaction { db in
                for member in withOther ? [device.user, other] : [device.user] {
                    try db.execute(
                        sql: "INSERT INTO document_members (id, document_id, user_id) VALUES (?, ?, ?)",
                        arguments: [UUID().uuidString.lowercased(), document, member]
                    )
                }
                try db.execute(sql: "INSERT INTO documents (id, title) VALUES (?, ?)", arguments: [document, title])
            }
        case 78..<83 where !documents.isEmpty:
            let document = documents[Int.random(in: 0..<documents.count, using: &random)]
            let title = "e\(Int.random(in: 0..<1000, using: &random))"
            log.append("\(device.name): edit document \(document.prefix(8)) → \(title)")
            try client.execute("UPDATE documents SET title = ? WHERE id = ?", params: [title, document])
        case 83..<85 where !memberships.isEmpty:
            let membership = memberships[Int.random(in: 0..<memberships.count, using: &random)]
            log.append("\(device.name): leaves through membership \(membership.prefix(8))")
            try client.execute("UPDATE document_members SET deleted_at = ? WHERE id = ?", params: [TimestampParser.format(Date()), membership])
        default:
            return false
        }
        return true
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
            let seen = try View(device.client, sharing: sharing)
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
        return try View(fresh.client, sharing: sharing)
    }

    func close() async {
        for device in devices { try? device.client.close() }
    }

    /// The live rows of a device, ids lower-cased.
    struct View: Equatable, CustomStringConvertible {
        var tasks: [String: String] = [:]
        var comments: [String: String] = [:]
        var documents: [String: String] = [:]
        var memberships: [String: String] = [:]
        var regions: [String: String] = [:]

        init(_ client: SynchroClient, sharing: Bool) throws {
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
            guard sharing else { return }
            for row in try client.query("SELECT id, title FROM documents WHERE deleted_at IS NULL") {
                documents[(row["id"] as String).lowercased()] = row["title"] as String? ?? "-"
            }
            for row in try client.query("SELECT id, document_id FROM document_members WHERE deleted_at IS NULL") {
                memberships[(row["id"] as String).lowercased()] = (row["document_id"] as String?)?.lowercased() ?? "-"
            }
            for row in try client.query("SELECT id, name FROM regions WHERE deleted_at IS NULL") {
                regions[(row["id"] as String).lowercased()] = row["name"] as String? ?? "-"
            }
        }

        var description: String {
            "tasks \(tasks.sorted { $0.key < $1.key }.map { "\($0.key.prefix(8))=\($0.value)" }), comments \(comments.count), "
                + "documents \(documents.sorted { $0.key < $1.key }.map { "\($0.key.prefix(8))=\($0.value)" }), memberships \(memberships.count), "
                + "regions \(regions.sorted { $0.key < $1.key }.map { "\($0.key.suffix(2))=\($0.value)" })"
        }
    }
}

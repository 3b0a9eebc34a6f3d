import Foundation
import Logging
import SelfDBRuntime
import SelfDBTestSupport
import Synchro
import Testing

@Suite("sync logging")
struct SyncLoggingTests {
    @Test func cyclesAreLoggedWithoutTheTokenOrTheValues() async throws {
        try await SyncWorld.run { world in
            let user = SyncWorld.newUser()
            let lines = LogLines()
            let phone = try await world.startedDevice("phone", user: user) { $0.logger = .capturing(lines) }
            let laptop = try await world.startedDevice("laptop", user: user)
            let secretTitle = "a title only the app may see"
            try phone.execute("INSERT INTO tasks (id, title, user_id) VALUES (?, ?, ?)", params: [UUID().uuidString, secretTitle, user])
            try await phone.syncNow()
            try laptop.execute("INSERT INTO tasks (id, title, user_id) VALUES (?, ?, ?)", params: [UUID().uuidString, "from the laptop", user])
            try await laptop.syncNow()
            try await phone.syncNow()

            let trace = lines.all
            for expected in ["POST /sync/push → 200", "sync pushed 1 change, 0 rejected", "sync pulled 1 record", "sync cycle done"] {
                #expect(trace.contains { $0.contains(expected) }, "no line contains '\(expected)':\n\(trace.joined(separator: "\n"))")
            }
            let token = world.emulator.syncAccessToken(forUser: user)
            #expect(!trace.contains { $0.contains(token) || $0.contains(secretTitle) })
        }
    }
}

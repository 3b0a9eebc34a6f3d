import Foundation
import SelfDBEmulator
import SelfDBRuntime
import SelfDBTestSupport
import Synchro
import Testing

/// Synchro through the fault proxy, on both protocols: pushes whose answers are lost or cut and
/// pull pages that are cut. Nothing applied twice on the server, no newer write overwritten by
/// an older one's replay, both devices converging with nothing pending, and nothing recorded as
/// rejected, or raised as a conflict, for a write the server took. A real conflict is still
/// recorded and raised, once.
@Suite("Synchro on a flaky network", .serialized)
struct SynchroFlakyNetworkTests {
    enum Version: Int, Sendable, CaseIterable, CustomTestStringConvertible {
        case one = 1
        case two = 2
        var testDescription: String { "protocol \(rawValue)" }
        var emulator: SyncProtocol { self == .one ? .one : .two }
        var pushPath: String { "/sync/push" }
        var pullPath: String { "/sync/pull" }
    }

    /// Syncs `device` until it has nothing pending and a cycle went through, at most `limit`
    /// cycles (each fails at the first lost answer); the errors it met.
    @discardableResult
    static func syncUntilSettled(_ device: SynchroClient, limit: Int = 40) async throws -> [any Error] {
        var errors: [any Error] = []
        for _ in 0..<limit {
            do {
                try await device.syncNow()
                if try device.pendingChangeCount() == 0 { return errors }
            } catch {
                errors.append(error)
            }
        }
        Issue.record("\(try device.pendingChangeCount()) changes still pending after \(limit) cycles: \(errors.suffix(3))")
        return errors
    }

    /// A device through `proxy`, with the events it raises counted.
    static func device(_ name: String, user: String, in world: SyncWorld, through proxy: FaultProxy) throws -> (SynchroClient, Counted) {
        let device = try world.device(name, user: user) { $0.serverURL = proxy.baseURL }
        let counted = Counted()
        counted.handlers.withLock {
            $0.append(device.onConflict { _ in counted.conflicts.withLock { $0 += 1 } })
            $0.append(device.onMutationRejected { _ in counted.rejections.withLock { $0 += 1 } })
        }
        return (device, counted)
    }

    /// The conflicts and rejections a device raised (its handlers live as long as this).
    final class Counted: Sendable {
        let conflicts = Locked(0)
        let rejections = Locked(0)
        let handlers = Locked<[SynchroCancellable]>([])
    }

    @Test(arguments: Version.allCases)
    func pushesAndPullsThroughLostAndCutAnswersApplyEachWriteOnce(_ version: Version) async throws {
        try await SyncWorld.run(configure: { $0.syncProtocol = version.emulator }) { world in
            let proxy = try FaultProxy(upstream: world.emulator.baseURL)
            defer { proxy.stop() }
            let user = SyncWorld.newUser()
            let (phone, phoneEvents) = try Self.device("phone", user: user, in: world, through: proxy)
            let (tablet, tabletEvents) = try Self.device("tablet", user: user, in: world, through: proxy)
            try await phone.start()
            try await tablet.start()

            // 200 rows written on the phone, pushed while 30 % of push answers are lost (after
            // the server committed) and some are cut.
            let ids = (0..<200).map { _ in UUID().uuidString.lowercased() }
            for (index, id) in ids.enumerated() {
                try phone.execute("INSERT INTO tasks (id, user_id, title) VALUES (?, ?, ?)", params: [id, user, "task \(index)"])
            }
            proxy.add(FaultRule(.loseAnswer, method: "POST", pathPrefix: version.pushPath, trigger: .probability(0.3)))
            proxy.add(FaultRule(.cutAnswer(fraction: 0.5), method: "POST", pathPrefix: version.pushPath, trigger: .probability(0.1)))
            let pushErrors = try await Self.syncUntilSettled(phone)
            #expect(!pushErrors.isEmpty, "no push answer was lost")

            // The tablet pulls while pages are lost or cut, then edits a row the phone may still
            // replay: the phone's replay must not overwrite it.
            proxy.clearRules()
            proxy.add(FaultRule(.cutAnswer(fraction: 0.4), method: "POST", pathPrefix: version.pullPath, trigger: .probability(0.3)))
            proxy.add(FaultRule(.loseAnswer, method: "POST", pathPrefix: version.pullPath, trigger: .probability(0.2)))
            try await Self.syncUntilSettled(tablet)
            #expect(try tablet.live("tasks").count == 200)

            // A replay on the phone after the tablet's newer write: the phone's insert of the
            // row went out, its answer was lost, and the tablet edits the row meanwhile.
            proxy.clearRules()
            let replayed = UUID().uuidString.lowercased()
            try phone.execute("INSERT INTO tasks (id, user_id, title) VALUES (?, ?, ?)", params: [replayed, user, "written on the phone"])
            proxy.add(FaultRule(.loseAnswer, method: "POST", pathPrefix: version.pushPath, trigger: .first(1)))
            await #expect(throws: (any Error).self) { try await phone.syncNow() }
            try await Task.sleep(for: .milliseconds(20))
            try await Self.syncUntilSettled(tablet)
            try tablet.execute("UPDATE tasks SET title = ? WHERE id = ?", params: ["edited on the tablet", replayed])
            try await Self.syncUntilSettled(tablet)
            try await Self.syncUntilSettled(phone)
            try await Self.syncUntilSettled(tablet)

            // What the server holds, read by a device of its own straight from the emulator.
            let reader = try await world.startedDevice("reader", user: user)
            let server = try reader.live("tasks")
            #expect(server.count == 201)
            #expect(Set(server.keys) == Set(ids + [replayed]))
            #expect(server[replayed] == "edited on the tablet")
            #expect(try phone.live("tasks") == server)
            #expect(try tablet.live("tasks") == server)
            #expect(try phone.pendingChangeCount() == 0)
            #expect(try tablet.pendingChangeCount() == 0)
            // Every write the server took was taken as such.
            let rejected = try phone.rejectedMutations()
            #expect(rejected.isEmpty, "\(rejected.prefix(3))")
            #expect(phoneEvents.conflicts.current == 0)
            #expect(phoneEvents.rejections.current == 0)
            #expect(try tablet.rejectedMutations().isEmpty)
            #expect(tabletEvents.conflicts.current == 0)
        }
    }

    @Test(arguments: Version.allCases)
    func deletesAndUpdatesWhoseAnswersAreLostAreTakenAsApplied(_ version: Version) async throws {
        try await SyncWorld.run(configure: { $0.syncProtocol = version.emulator }) { world in
            let proxy = try FaultProxy(upstream: world.emulator.baseURL)
            defer { proxy.stop() }
            let user = SyncWorld.newUser()
            let (phone, events) = try Self.device("phone", user: user, in: world, through: proxy)
            try await phone.start()
            let ids = (0..<30).map { _ in UUID().uuidString.lowercased() }
            for id in ids {
                try phone.execute("INSERT INTO tasks (id, user_id, title) VALUES (?, ?, ?)", params: [id, user, "before"])
            }
            try await Self.syncUntilSettled(phone)

            for id in ids.prefix(15) {
                try phone.execute("UPDATE tasks SET title = ? WHERE id = ?", params: ["after", id])
            }
            for id in ids.suffix(15) {
                try phone.execute("DELETE FROM tasks WHERE id = ?", params: [id])
            }
            proxy.add(FaultRule(.loseAnswer, method: "POST", pathPrefix: version.pushPath, trigger: .probability(0.5)))
            try await Self.syncUntilSettled(phone)
            #expect(proxy.faultsApplied >= 1)

            let reader = try await world.startedDevice("reader", user: user)
            let server = try reader.live("tasks")
            #expect(Set(server.keys) == Set(ids.prefix(15)))
            #expect(server.values.allSatisfy { $0 == "after" })
            #expect(try phone.live("tasks") == server)
            let rejected = try phone.rejectedMutations()
            #expect(rejected.isEmpty, "\(rejected.prefix(3))")
            #expect(events.conflicts.current == 0)
        }
    }

    /// A push that could not connect leaves its changes out of flight (they go next as first
    /// sends); one whose answer was lost leaves them in flight (they may have landed).
    @Test(arguments: Version.allCases)
    func onlyAPushThatMayHaveLandedLeavesItsChangesInFlight(_ version: Version) async throws {
        try await SyncWorld.run(configure: { $0.syncProtocol = version.emulator }) { world in
            let proxy = try FaultProxy(upstream: world.emulator.baseURL)
            defer { proxy.stop() }
            let user = SyncWorld.newUser()
            let (phone, events) = try Self.device("phone", user: user, in: world, through: proxy)
            try await phone.start()
            func inFlight() throws -> Int {
                try phone.queryOne("SELECT COUNT(*) AS n FROM _synchro_pending WHERE inflight_seq IS NOT NULL")?["n"] ?? -1
            }
            let id = UUID().uuidString.lowercased()
            try phone.execute("INSERT INTO tasks (id, user_id, title) VALUES (?, ?, ?)", params: [id, user, "offline"])
            proxy.goOffline()
            await #expect(throws: (any Error).self) { try await phone.syncNow() }
            #expect(try inFlight() == 0)

            try proxy.goOnline()
            proxy.add(FaultRule(.loseAnswer, method: "POST", pathPrefix: version.pushPath, trigger: .first(1)))
            await #expect(throws: (any Error).self) { try await phone.syncNow() }
            #expect(try inFlight() == 1)
            try await Self.syncUntilSettled(phone)
            #expect(try inFlight() == 0)
            let reader = try await world.startedDevice("reader", user: user)
            #expect(try reader.live("tasks") == [id: "offline"])
            #expect(try phone.rejectedMutations().isEmpty)
            #expect(events.conflicts.current == 0)
        }
    }

    /// Pushes through resets before the request, 503 and 429 with `Retry-After`: each write
    /// lands once, nothing is rejected.
    @Test(arguments: Version.allCases)
    func pushesThroughResetsAndBusyAnswersLandOnce(_ version: Version) async throws {
        try await SyncWorld.run(configure: { $0.syncProtocol = version.emulator }) { world in
            let proxy = try FaultProxy(upstream: world.emulator.baseURL)
            defer { proxy.stop() }
            let user = SyncWorld.newUser()
            let (phone, events) = try Self.device("phone", user: user, in: world, through: proxy)
            try await phone.start()
            let ids = (0..<50).map { _ in UUID().uuidString.lowercased() }
            for id in ids {
                try phone.execute("INSERT INTO tasks (id, user_id, title) VALUES (?, ?, ?)", params: [id, user, "busy"])
            }
            proxy.add(FaultRule(.resetBeforeRequest, method: "POST", pathPrefix: version.pushPath, trigger: .first(1)))
            proxy.add(FaultRule(.serviceUnavailable(retryAfter: 1), method: "POST", pathPrefix: version.pushPath, trigger: .first(1)))
            proxy.add(FaultRule(.tooManyRequests(retryAfter: 0), method: "POST", pathPrefix: version.pushPath, trigger: .first(1)))
            try await Self.syncUntilSettled(phone)
            #expect(proxy.faultsApplied == 3)
            let reader = try await world.startedDevice("reader", user: user)
            #expect(Set(try reader.live("tasks").keys) == Set(ids))
            #expect(try phone.rejectedMutations().isEmpty)
            #expect(events.conflicts.current == 0)
        }
    }

    /// Another device's newer write is a conflict: recorded and raised once, even when the
    /// losing push's answer was lost and it was sent again.
    @Test(arguments: Version.allCases)
    func aRealConflictIsStillRecordedOnce(_ version: Version) async throws {
        try await SyncWorld.run(configure: { $0.syncProtocol = version.emulator }) { world in
            let proxy = try FaultProxy(upstream: world.emulator.baseURL)
            defer { proxy.stop() }
            let user = SyncWorld.newUser()
            let (phone, events) = try Self.device("phone", user: user, in: world, through: proxy)
            let tablet = try await world.startedDevice("tablet", user: user)
            try await phone.start()
            let id = UUID().uuidString.lowercased()
            try phone.execute("INSERT INTO tasks (id, user_id, title) VALUES (?, ?, ?)", params: [id, user, "first"])
            try await Self.syncUntilSettled(phone)
            try await tablet.syncNow()

            // The phone edits the row first; the tablet's later edit reaches the server first.
            try phone.execute("UPDATE tasks SET title = ? WHERE id = ?", params: ["older, on the phone", id])
            try await Task.sleep(for: .milliseconds(20))
            try tablet.execute("UPDATE tasks SET title = ? WHERE id = ?", params: ["newer, on the tablet", id])
            try await tablet.syncNow()
            proxy.add(FaultRule(.loseAnswer, method: "POST", pathPrefix: version.pushPath, trigger: .first(1)))
            try await Self.syncUntilSettled(phone)

            #expect(try phone.live("tasks")[id] == "newer, on the tablet")
            #expect(try phone.rejectedMutations().map(\.recordID) == [id])
            #expect(events.conflicts.current == 1)
        }
    }
}

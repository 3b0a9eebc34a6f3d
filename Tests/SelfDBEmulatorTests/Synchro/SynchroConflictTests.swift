import Foundation
import Testing

@testable import SelfDBEmulator
@testable import SynchroEmulator

@Suite("Synchro server: last-write-wins")
struct SynchroConflictTests {
    @Test func ruleWithAndWithoutBase() {
        let server = SyncTimestamp(milliseconds: 1_000_000)
        let tolerance: Int64 = 5_000
        func winner(client: Int64, base: Int64?) -> ConflictRule.Winner {
            ConflictRule.resolve(
                server: server,
                client: server.adding(milliseconds: client),
                base: base.map { server.adding(milliseconds: $0) },
                toleranceMilliseconds: tolerance
            ).winner
        }
        // Without a base: client + tolerance must be after the server.
        #expect(winner(client: 1, base: nil) == .client)
        #expect(winner(client: -4_999, base: nil) == .client)
        #expect(winner(client: -5_000, base: nil) == .server, "equal after the tolerance: the server keeps it")
        #expect(winner(client: -6_000, base: nil) == .server)
        // Base equal to the server: the client saw the latest version and wins, however old its clock.
        #expect(winner(client: -60_000, base: 0) == .client)
        // Base after the server: a version the server never had.
        #expect(winner(client: 60_000, base: 1) == .server)
        // Base before the server: someone wrote in between; timestamps decide.
        #expect(winner(client: 1_000, base: -1) == .client)
        #expect(winner(client: -4_000, base: -1) == .client)
        #expect(winner(client: -7_000, base: -1) == .server)
        #expect(ConflictRule.resolve(server: server, client: server, base: nil, toleranceMilliseconds: 0).winner == .server)
    }

    @Test func pushedUpdatesFollowTheRuleWithSkewTolerance() async throws {
        try await withSyncEmulator { emulator, client in
            try await client.register()
            let id = UUID().uuidString.lowercased()
            let created = try await client.pushOne(Change.create("tasks", id, Change.task("v1")))
            var server = try #require(created["server_updated_at"]?.stringValue.flatMap(SyncTimestamp.init(parsing:)))

            // No base, client clock 4 s behind: within the 5 s tolerance, the client wins.
            let lagging = try await client.pushOne(Change.update("tasks", id, Change.task("v2"), at: server.adding(milliseconds: -4_000).text))
            #expect(lagging.outcome == "applied")
            server = try #require(lagging["server_updated_at"]?.stringValue.flatMap(SyncTimestamp.init(parsing:)))

            // No base, 6 s behind: the server wins and sends its version.
            let stale = try await client.pushOne(Change.update("tasks", id, Change.task("v3"), at: server.adding(milliseconds: -6_000).text))
            #expect(stale.outcome == "conflict/server_won_conflict")
            #expect(stale["server_version"]?["data"]?["title"] == "v2")
            #expect(stale["server_version"]?["updated_at"] == .string(server.text))

            // Base equal to the server's updated_at: the client wins even with an old clock.
            let based = try await client.pushOne(Change.update("tasks", id, Change.task("v4"), at: Change.longAgo, base: server.text))
            #expect(based.outcome == "applied")
            let current = try #require(based["server_updated_at"]?.stringValue.flatMap(SyncTimestamp.init(parsing:)))

            // Base older than the server (another device wrote since): timestamps decide.
            let outdated = try await client.pushOne(Change.update("tasks", id, Change.task("v5"), at: Change.longAgo, base: server.text))
            #expect(outdated.outcome == "conflict/server_won_conflict")
            let newer = try await client.pushOne(
                Change.update("tasks", id, Change.task("v6"), at: current.adding(milliseconds: 1_000).text, base: server.text)
            )
            #expect(newer.outcome == "applied")
            let latest = try #require(newer["server_updated_at"]?.stringValue.flatMap(SyncTimestamp.init(parsing:)))

            // Base from the future: refused whatever the clock says.
            let future = try await client.pushOne(
                Change.update("tasks", id, Change.task("v7"), at: latest.adding(milliseconds: 60_000).text, base: latest.adding(milliseconds: 1).text)
            )
            #expect(future.outcome == "conflict/server_won_conflict")
            #expect(try emulator.syncedRow(table: "tasks", id: id)?.values["title"] == .string("v6"))
        }
    }

    @Test func toleranceIsConfigurable() async throws {
        try await withSyncEmulator(configure: { $0.syncClockSkewTolerance = 0 }) { _, client in
            try await client.register()
            let id = UUID().uuidString
            let created = try await client.pushOne(Change.create("tasks", id, Change.task("v1")))
            let server = try #require(created["server_updated_at"]?.stringValue.flatMap(SyncTimestamp.init(parsing:)))
            let lagging = try await client.pushOne(Change.update("tasks", id, Change.task("v2"), at: server.adding(milliseconds: -1_000).text))
            #expect(lagging.outcome == "conflict/server_won_conflict")
            let ahead = try await client.pushOne(Change.update("tasks", id, Change.task("v2"), at: server.adding(milliseconds: 1).text))
            #expect(ahead.outcome == "applied")
        }
    }

    @Test func timestampsParseRFC3339() {
        #expect(SyncTimestamp(parsing: "1970-01-01T00:00:00Z")?.milliseconds == 0)
        #expect(SyncTimestamp(parsing: "1970-01-01T00:00:01.5Z")?.milliseconds == 1_500)
        #expect(SyncTimestamp(parsing: "1970-01-01T01:00:00.123456789+01:00")?.milliseconds == 123)
        #expect(SyncTimestamp(parsing: "2024-02-29T12:00:00.000Z")?.text == "2024-02-29T12:00:00.000Z")
        #expect(SyncTimestamp(parsing: "1969-12-31T23:59:59.999Z")?.text == "1969-12-31T23:59:59.999Z")
        #expect(SyncTimestamp(parsing: "2023-02-29T12:00:00Z") == nil)
        #expect(SyncTimestamp(parsing: "2024-01-01T00:00:00") == nil, "an offset is required")
        #expect(SyncTimestamp(parsing: "2024-01-01") == nil)
    }

    @Test func appVersionsCompareSemantically() {
        func less(_ lhs: String, _ rhs: String) -> Bool? {
            guard let lhs = AppVersion(lhs), let rhs = AppVersion(rhs) else { return nil }
            return lhs < rhs
        }
        #expect(less("1.9.9", "1.10.0") == true)
        #expect(less("1.2.0-rc.1", "1.2.0") == true)
        #expect(less("1.2.0", "1.2.0-rc.1") == false)
        #expect(AppVersion("2") == AppVersion("2.0.0"))
        #expect(AppVersion("1.2.3+build.7") == AppVersion("1.2.3"))
        #expect(AppVersion("1.2.3.4") == nil)
        #expect(AppVersion("") == nil)
        #expect(AppVersion("1.x") == nil)
    }
}

import Foundation
import GRDB
import SelfDBEmulator
import Testing

@testable import Synchro

/// Protocol 2: a row no scope of the device holds goes once the pull ends, and the pass that
/// finds such rows looks at the records that may have become so, not at every row.
@Suite("Synchro client: rows no scope holds")
struct UnheldRowsTests {
    /// A row written for another user (the tasks spec with `push: enabled`: any user writes any
    /// row) goes from the device that wrote it once its push is settled and the pull is done;
    /// the device's own rows stay, the other user's device has it, and no candidate is left.
    @Test("a row written for another user leaves the writing device after the cycle; its own rows stay; no whole pass")
    func rowWrittenForAnotherUserGoes() async throws {
        let spec = try EditableSpec()
        defer { spec.remove() }
        try spec.change("    sync: { owner: user_id }\n", to: "    sync: { owner: user_id, push: enabled }\n")
        try await SyncWorld.run(configure: {
            $0.syncProtocol = .two
            $0.syncSpecs = [spec.url]
        }) { world in
            let user = SyncWorld.newUser()
            let other = SyncWorld.newUser()
            let phone = try await world.startedDevice("phone", user: user)
            let mine = UUID().uuidString.lowercased()
            try phone.execute("INSERT INTO tasks (id, user_id, title) VALUES (?, ?, ?)", params: [mine, user, "mine"])
            try await phone.syncNow()
            // The first cycle's pass looked at every row; later ones look at candidates only.
            #expect(try Self.wholePassDone(phone))

            let theirs = UUID().uuidString.lowercased()
            try phone.execute("INSERT INTO tasks (id, user_id, title) VALUES (?, ?, ?)", params: [theirs, other, "for you"])
            try phone.execute("UPDATE tasks SET title = 'mine, edited' WHERE id = ?", params: [mine])
            try await phone.syncNow()
            #expect(try phone.live("tasks") == [mine: "mine, edited"])
            #expect(try phone.pendingChangeCount() == 0, "the cleanup queues nothing")
            #expect(try Self.candidates(phone) == 0)
            #expect(try Self.wholePassDone(phone), "a push settled names its records; the whole pass is not due again")

            let receiver = try await world.startedDevice("receiver", user: other)
            #expect(try receiver.live("tasks") == [theirs: "for you"])
        }
    }

    /// A candidate whose row a local change still needs stays until the change is settled.
    @Test("a candidate a pending change needs is kept; a candidate a scope holds is kept")
    func candidatesAreCheckedLikeTheWholePass() throws {
        let (client, cleanUp) = try LocalTrackingTests.openClient()
        defer { cleanUp() }
        let held = UUID().uuidString.lowercased()
        let pending = UUID().uuidString.lowercased()
        let unheld = UUID().uuidString.lowercased()
        let untouched = UUID().uuidString.lowercased()
        try client.writeTransaction { db in
            try MetaStore.withSyncLock(db) {
                for id in [held, unheld, untouched] {
                    try db.execute(sql: "INSERT INTO tasks (id, title, updated_at) VALUES (?, 't', '2026-11-29T00:00:00.000Z')", arguments: [id])
                }
                try ScopeState.add("s1", in: db)
                var tagger = ScopeState.Tagger(in: db, replaced: client.engine.replacedChecksums)
                try tagger.tag("s1", table: "tasks", id: held, checksum: 7, generation: 0)
                try tagger.flush()
            }
        }
        // Written by the app: queued, held by no scope.
        try client.execute("INSERT INTO tasks (id, title, updated_at) VALUES (?, 't', '2026-11-29T00:00:00.000Z')", params: [pending])
        let schema = try client.engine.currentSchema()
        try client.writeTransaction { db in
            try MetaStore.withSyncLock(db) {
                try MetaStore.set(.unheldRowsPruned, "1", in: db)
                for id in [held, pending, unheld] { try ScopeState.markMayBeUnheld(table: "tasks", id: id.uppercased(), in: db) }
                #expect(try ScopeState.unheldPassDue(in: db))
                try ScopeState.pruneUnheld(schema: schema, onlyIfDue: true, in: db)
                #expect(try !ScopeState.unheldPassDue(in: db))
            }
        }
        // The candidate no scope holds and nothing needs is gone; the row no one named stays
        // (the whole pass was not due), as do the held and the pending one.
        #expect(Set(try client.live("tasks").keys) == [held, pending, untouched])
        #expect(try Self.candidates(client) == 0)
    }

    static func candidates(_ client: SynchroClient) throws -> Int64 {
        try client.queryOne("SELECT COUNT(*) AS n FROM _synchro_unheld_candidates")?["n"] ?? -1
    }

    static func wholePassDone(_ client: SynchroClient) throws -> Bool {
        try client.queryOne("SELECT value FROM _synchro_meta WHERE key = 'unheld_rows_pruned'")?["value"] == "1"
    }
}

import Foundation
import GRDB
import GRDBBinding
import Testing

@testable import Synchro

/// A batch's pending and local rows are read a few hundred keys per statement
/// (`PendingQueue.BatchRead`); every change must still be the one of its own record.
@Suite("Push batches read many keys per statement")
struct BatchReadTests {
    /// Ids SQLite keeps apart but Swift's `String` would not: `NOCASE` folds ASCII letters
    /// only, and SQLite compares bytes where Swift takes the composed and decomposed `é` for
    /// one string. Each record's change must carry its own title.
    @Test func idsThatOnlySwiftWouldConfuseKeepTheirOwnChanges() throws {
        let (client, cleanUp) = try LocalTrackingTests.openClient()
        defer { cleanUp() }
        let ids = ["É1", "é1", "\u{E9}2", "e\u{301}2", "Ω3", "ω3"]
        for id in ids {
            try client.execute("INSERT INTO tasks (id, title) VALUES (?, ?)", params: [id, "title of \(id.unicodeScalars.map { String($0.value, radix: 16) }.joined(separator: "+"))"])
        }
        let changes = try Self.readAheadAndPrepare(client)
        #expect(changes.count == ids.count)
        for change in changes {
            let id = change.pending.recordID
            #expect(change.change.data?["title"] == .string("title of \(id.unicodeScalars.map { String($0.value, radix: 16) }.joined(separator: "+"))"), "\(id.debugDescription)")
        }
    }

    /// More keys than one statement lists, in upper case locally (the pending rows hold them in
    /// lower case), with records removed between the read ahead and the check.
    @Test func aBatchOfMoreThanOneStatementFindsEveryRecordAndReadsAgainWhatChanged() throws {
        let (client, cleanUp) = try LocalTrackingTests.openClient()
        defer { cleanUp() }
        let count = KeyList.maximumCount * 2 + 37
        try client.withWritePreparedStatement("INSERT INTO tasks (id, title) VALUES (?, ?)") { statement in
            for index in 0..<count { try statement.execute(arguments: ["ID-\(index)", "t\(index)"]) }
        }
        let schema = try client.engine.currentSchema()
        let keys = try client.database.write { db in try PendingQueue.round(after: 0, rank: schema.pushRank, in: db).keys }
        #expect(keys.count == count)
        let read = try client.database.read { db in try PendingQueue.readAhead(keys[...], schema: schema, in: db) }
        #expect(read.compactMap { $0 }.count == count)
        #expect(read.allSatisfy { $0.map { $0.outgoing.change.data?["title"] == .string("t" + $0.outgoing.pending.recordID.dropFirst(3)) } ?? false })

        // Gone since (a create and a delete that cancel out), and edited since.
        try client.execute("DELETE FROM tasks WHERE id = 'ID-5'")
        try client.execute("UPDATE tasks SET title = 'edited' WHERE id = 'ID-700'")
        let outgoing = try client.database.write { db in try PendingQueue.prepare(keys[...], readAhead: read, schema: schema, in: db) }
        #expect(outgoing.count == count - 1)
        #expect(!outgoing.contains { $0.pending.recordID == "id-5" })
        #expect(outgoing.first { $0.pending.recordID == "id-700" }?.change.data?["title"] == "edited")
        #expect(outgoing.first { $0.pending.recordID == "id-701" }?.change.data?["title"] == "t701")
    }

    /// Reads `client`'s pending changes ahead, then checks and marks them, as a push does.
    static func readAheadAndPrepare(_ client: SynchroClient) throws -> [OutgoingChange] {
        let schema = try client.engine.currentSchema()
        let keys = try client.database.write { db in try PendingQueue.round(after: 0, rank: schema.pushRank, in: db).keys }
        let read = try client.database.read { db in try PendingQueue.readAhead(keys[...], schema: schema, in: db) }
        for (key, early) in zip(keys, read) {
            #expect(early?.outgoing.pending.recordID == key.id)
        }
        return try client.database.write { db in try PendingQueue.prepare(keys[...], readAhead: read, schema: schema, in: db) }
    }
}

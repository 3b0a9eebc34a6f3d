import Foundation
import GRDB
import GRDBBinding

/// Settles a push response in the local database, in one transaction with the sync lock.
///
/// A pending row is removed only if it still has the seq that was sent: an edit made while
/// the push was in flight stays pending — on top of the server's new version — and goes
/// with the next push. (The reference client removes by table and id, and loses it.)
enum PushSettlement {
    struct Outcome {
        var conflicts: [ConflictEvent] = []
        var rejected: [PushResult] = []
        /// Conflicts and terminal rejections, as recorded in `_synchro_rejected_mutations`.
        var rejections: [MutationRejection] = []
        var retryable = 0
    }

    /// `scoped` (protocol 2, where scopes hold the rows): an update or delete the server refused
    /// by policy, without sending its row, gets the server's row back
    /// (``ScopeState/distrust(table:id:schema:in:)``), and every record settled may be held by
    /// no scope of this client once the pull is done (written for another user): the pull's
    /// pass over unheld rows looks at them (``ScopeState/markMayBeUnheld(table:id:in:)``).
    static func settle(
        _ response: PushResponse,
        sent: [OutgoingChange],
        schema: LocalSchema,
        applier: RecordApplier,
        scoped: Bool = false,
        in db: Database
    ) throws -> Outcome {
        if scoped {
            var candidates = ScopeState.unheldCandidateWriter(in: db)
            for outgoing in sent {
                try candidates.appendRow { values in
                    values.append(outgoing.pending.table.databaseValue)
                    values.append(outgoing.pending.recordID.databaseValue)
                }
            }
            try candidates.flush()
        }
        let results = Answers(response, sent: sent)
        var outcome = Outcome()
        // The server's rows, many to a statement: each settles one record, which nothing
        // else here reads or writes.
        var overwriter = applier.overwriter(in: db)
        for (position, outgoing) in sent.enumerated() {
            let pending = outgoing.pending
            // No word on this change: it stays pending (and in flight, as it may have landed).
            guard var result = results.answer(at: position, for: pending), let table = schema.table(pending.table) else { continue }
            // A replay of a write that landed unanswered: the server holds it (+Replays).
            if landedBefore(result, of: outgoing, in: table) { result = result.settledAsApplied() }
            // The usual answer: a change applied and not edited since it was sent. Its pending
            // row goes in one statement (on its seq, so an edit made meanwhile stays), and the
            // row takes the server's version: its timestamp, the defaults it filled, its
            // spelling of the key. The pull's echo of this very change (protocol 2 sends a device
            // its own writes) then finds the row equal and writes nothing; it used to write every
            // pushed row a second time.
            if result.status == .applied, outgoing.change.operation != .delete, let server = result.serverVersion,
                try PendingQueue.removeIfUnchanged(pending, in: db)
            {
                try overwriter.write(server)
                continue
            }
            let current = try currentSeqAndOperation(of: pending, in: db)
            let unchanged = current?.seq == pending.seq
            switch result.status {
            case .applied:
                // A delete, an answer without the server's row, or a record edited since.
                let timestamp = outgoing.change.operation == .delete ? result.serverDeletedAt : result.serverUpdatedAt
                try writeServerTimestamp(timestamp, for: outgoing, in: table, db: db)
                if unchanged {
                    try PendingQueue.remove(pending, in: db)
                } else if let current {
                    try rebase(pending, operation: continuation(sent: outgoing.change.operation, now: current.operation), base: timestamp, in: db)
                }
            case .conflict:
                outcome.rejections.append(try record(result, of: pending, in: db))
                if unchanged {
                    try PendingQueue.remove(pending, in: db)
                    if let server = result.serverVersion { try overwriter.write(server) }
                } else if current != nil {
                    // The newer local edit is based on the server's version now, and wins.
                    try rebase(pending, operation: nil, base: result.serverVersion?.updatedAt, in: db)
                }
                outcome.conflicts.append(
                    ConflictEvent(
                        table: pending.table,
                        recordID: pending.recordID,
                        clientData: outgoing.change.data,
                        serverData: result.serverVersion?.data
                    )
                )
            case .rejectedTerminal:
                outcome.rejections.append(try record(result, of: pending, in: db))
                if unchanged {
                    try PendingQueue.remove(pending, in: db)
                    if let server = result.serverVersion {
                        try overwriter.write(server)
                    } else if outgoing.change.operation == .create, result.reasonCode != RejectedMutations.batchRolledBack {
                        // The server will never have this record (e.g. a comment whose task
                        // was created and deleted offline): keeping it would leave a row no
                        // other device has. The app hears of it through `pushRejected`. A change
                        // set aside after whole-batch failures keeps its row, as the official
                        // client keeps every rejected row: its values are what the server could
                        // not take, and the app may mend them.
                        try removeLocalRow(of: pending, in: table, db: db)
                    } else if scoped, RejectedMutations.isRefusalOfTheRow(result) {
                        // An update or delete no one may make (another user's row, a move to
                        // another user, a read-only table), or of a row the server does not
                        // have: the local row goes back to what the server holds. A value the
                        // server could not take stays for the app to mend, as a set-aside
                        // change does.
                        try ScopeState.distrust(table: pending.table, id: pending.recordID, schema: schema, in: db)
                    }
                } else if current != nil {
                    try rebase(pending, operation: nil, base: nil, in: db)
                }
                outcome.rejected.append(result)
            case .rejectedRetryable, .unknown:
                try rebase(pending, operation: nil, base: nil, in: db)
                outcome.retryable += 1
            }
        }
        try overwriter.flush()
        return outcome
    }

    /// Keeps the server's answer in `_synchro_rejected_mutations`, as the official client does.
    private static func record(_ result: PushResult, of pending: PendingChange, in db: Database) throws -> MutationRejection {
        let rejection = MutationRejection(
            mutationID: RejectedMutations.mutationID(of: pending),
            table: pending.table,
            recordID: pending.recordID,
            status: result.status.rawValue,
            code: result.reasonCode ?? (result.status == .conflict ? "version_conflict" : "rejected"),
            message: result.message,
            serverRow: result.serverVersion?.data,
            serverVersion: result.serverUpdatedAt ?? result.serverVersion?.updatedAt
        )
        try RejectedMutations.record(rejection, in: db)
        return rejection
    }

    /// The server's answer to each change sent. Usually the answer lists them all, applied, in
    /// the order sent: then the answer at a change's position is its own, which is checked
    /// rather than looked up (a key made and hashed for every change was a seventh of settling
    /// a batch). Otherwise they are found by table and record id, without case.
    private struct Answers {
        private let inOrder: [PushResult]?
        private let byKey: [String: PushResult]

        init(_ response: PushResponse, sent: [OutgoingChange]) {
            let complete = response.rejected.isEmpty && response.accepted.count == sent.count
            if complete, zip(response.accepted, sent).allSatisfy({ $0.id == $1.pending.recordID && $0.tableName == $1.pending.table }) {
                (inOrder, byKey) = (response.accepted, [:])
                return
            }
            var byKey: [String: PushResult] = [:]
            for result in response.accepted + response.rejected {
                byKey[Self.key(result.tableName, result.id)] = result
            }
            (inOrder, self.byKey) = (nil, byKey)
        }

        func answer(at position: Int, for pending: PendingChange) -> PushResult? {
            if let inOrder { return inOrder[position] }
            return byKey[Self.key(pending.table, pending.recordID)]
        }

        private static func key(_ table: String, _ id: String) -> String {
            table + "\u{0}" + id.lowercased()
        }
    }

    private static func currentSeqAndOperation(of pending: PendingChange, in db: Database) throws -> (seq: Int64, operation: String)? {
        let select = try db.cachedStatement(sql: "SELECT seq, operation FROM _synchro_pending WHERE table_name = ? AND record_id = ?")
        try select.bind([pending.table.databaseValue, pending.recordID.databaseValue])
        return try Row.fetchOne(select).map { ($0[0], $0[1]) }
    }

    /// What a record edited during the push must do next, now that the sent operation
    /// landed: a create that landed makes later edits updates; a delete that landed makes a
    /// re-created record a resurrection (a create).
    private static func continuation(sent: PushOperation, now current: String) -> String {
        switch (sent, current) {
        case (.create, "create"), (.create, "update"): "update"
        case (.delete, "update"), (.delete, "create"): "create"
        default: current
        }
    }

    /// Keeps the pending row for the next push: out of flight, with a new base (and
    /// operation) when given.
    private static func rebase(_ pending: PendingChange, operation: String?, base: String?, in db: Database) throws {
        try db.cachedStatement(
            sql: """
                UPDATE _synchro_pending SET inflight_seq = NULL,
                    operation = COALESCE(?, operation), base_updated_at = COALESCE(?, base_updated_at)
                WHERE table_name = ? AND record_id = ?
                """
        ).execute(binding: [operation.databaseValue, base.databaseValue, pending.table.databaseValue, pending.recordID.databaseValue])
    }

    private static func removeLocalRow(of pending: PendingChange, in table: LocalTable, db: Database) throws {
        try db.cachedStatement(
            sql: "DELETE FROM \(table.name.quotedDatabaseIdentifier) WHERE \(table.primaryKey.quotedDatabaseIdentifier) = ?"
        ).execute(arguments: [pending.recordID])
    }

    /// The server's `updated_at` (or `deleted_at`) on the local row, so the next pull's echo
    /// of this very change is recognised and the next edit is based on it.
    private static func writeServerTimestamp(_ timestamp: String?, for outgoing: OutgoingChange, in table: LocalTable, db: Database) throws {
        guard let timestamp else { return }
        let column = outgoing.change.operation == .delete ? table.deletedAt : table.updatedAt
        try db.cachedStatement(
            sql: "UPDATE \(table.name.quotedDatabaseIdentifier) SET \(column.quotedDatabaseIdentifier) = ? "
                + "WHERE \(table.primaryKey.quotedDatabaseIdentifier) = ?"
        ).execute(binding: [timestamp.databaseValue, outgoing.pending.recordID.databaseValue])
    }
}

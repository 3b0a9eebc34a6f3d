import Foundation
import GRDB
import SelfDBRuntime

extension PushSettlement {
    /// Whether a `conflict` answer to `outgoing` says that the server holds the write already,
    /// so the change is settled as applied: no rejection recorded, no conflict event raised.
    ///
    /// A push whose answer was lost or cut is sent again (the cycle retries), and the server
    /// takes no mutation id as a key: a write that landed the first time is answered as a
    /// conflict the second (protocol 2: an insert "record already exists", an update whose
    /// version equals the row's "server version is newer"; protocol 1: `record_exists`). The
    /// contract asks clients to take these as success. The server holds the write when:
    /// - the change is a create sent before without an answer, and the row exists: the first
    ///   send made it (whatever happened to it since: an edit or a delete by another device
    ///   arrives as the server's row, which settlement writes here). Only a key that another
    ///   device created too, at the moment this one's answer was lost, is taken wrongly;
    /// - the change was sent before and the row's version is the change's own time: the
    ///   server wrote this very change (protocol 2 stores `updated_at = client_version`);
    /// - or the row holds every value the change sent.
    ///
    /// Any other conflict, another device's newer write among them, is a conflict.
    static func landedBefore(_ result: PushResult, of outgoing: OutgoingChange, in table: LocalTable) -> Bool {
        guard result.status == .conflict, let server = result.serverVersion else { return false }
        let pending = outgoing.pending
        if pending.sentBefore {
            if outgoing.change.operation == .create { return true }
            if sameInstant(server.updatedAt, pending.clientUpdatedAt) { return true }
        }
        guard server.deletedAt == nil, outgoing.change.operation != .delete, let sent = outgoing.change.data else { return false }
        return holds(server.data, every: sent, of: table)
    }

    /// Whether `row` has each value of `sent` (the columns the server writes: not the key, the
    /// timestamps or `created_at`), compared as the local table stores them.
    private static func holds(_ row: [String: JSONValue], every sent: [String: JSONValue], of table: LocalTable) -> Bool {
        let protected: Set<String> = [table.primaryKey, table.updatedAt, table.deletedAt, "created_at"]
        for column in table.columns where !protected.contains(column.name) {
            guard let value = sent[column.name] else { continue }
            let mine = ValueConversion.databaseValue(value, as: column.logicalType)
            let theirs = ValueConversion.databaseValue(row[column.name] ?? .null, as: column.logicalType)
            if mine == theirs { continue }
            // The same time, written with other digits or another offset.
            if column.logicalType == .datetime, let mine = String.fromDatabaseValue(mine), let theirs = String.fromDatabaseValue(theirs),
                sameInstant(mine, theirs)
            {
                continue
            }
            // A key or parent key in the server's spelling (a UUID in lower case).
            if column.name == table.parentKey, let mine = String.fromDatabaseValue(mine), let theirs = String.fromDatabaseValue(theirs),
                mine.caseInsensitiveCompare(theirs) == .orderedSame
            {
                continue
            }
            return false
        }
        return true
    }

    /// Whether two timestamps name the same millisecond (the precision both sides keep).
    static func sameInstant(_ lhs: String, _ rhs: String) -> Bool {
        guard let left = TimestampParser.parse(lhs), let right = TimestampParser.parse(rhs) else { return lhs == rhs }
        return abs(left.timeIntervalSince(right)) < 0.0005
    }
}

extension PushResult {
    /// This answer as the server's acceptance of the change, with its row.
    func settledAsApplied() -> PushResult {
        var result = self
        result.status = .applied
        result.reasonCode = nil
        result.message = nil
        result.serverUpdatedAt = serverVersion?.updatedAt ?? serverUpdatedAt
        result.serverDeletedAt = serverVersion?.deletedAt ?? serverDeletedAt
        return result
    }
}

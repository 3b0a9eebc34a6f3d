import Foundation

extension CRDTSQLite {
    /// Forgets tombstones whose `dbVersion` is strictly below `minAcknowledgedVersion`, the
    /// oldest version every peer has acknowledged; returns how many were removed.
    ///
    /// Only call it with a version all peers have seen: a peer that was offline past it still
    /// holds the deleted record and must resync from scratch (otherwise the record could come
    /// back when it sends its old changes).
    @discardableResult
    public func compactTombstones(minAcknowledgedVersion version: UInt64) throws -> Int {
        try run {
            try connection.transaction {
                // The clock and the feed's end are read back from the latest metadata row, which
                // may be a tombstone about to go: keep them as floors first.
                let clock = try tracking.clock()
                let sequence = try tracking.lastSequence()
                try statements.run("UPDATE _crdt_state SET clock = max(clock, ?), seq = max(seq, ?) WHERE id = 1", [.integer(clock), .integer(sequence)])
                try statements.run("DELETE FROM _crdt_rows WHERE cl % 2 = 0 AND life_version < ?", [.integer(Int64(clamping: version))])
                return connection.changes
            }
        }
    }
}

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
            try statements.run("DELETE FROM _crdt_records WHERE cl % 2 = 0 AND db_version < ?", [.integer(Int64(clamping: version))])
            return connection.changes
        }
    }
}

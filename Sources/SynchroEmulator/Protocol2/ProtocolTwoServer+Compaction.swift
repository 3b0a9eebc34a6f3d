import GRDB

/// The real server's `synchro_compact` (§4.6), on demand for tests: log entries dropped up to a
/// sequence, and clients deactivated.
extension ProtocolTwoServer {
    /// Deletes every change-log entry up to `sequence` (by default, all but the newest, so
    /// that older cursors become stale rather than the log empty: with an empty log the real
    /// server treats no cursor as stale). A cursor below the oldest entry left is answered with
    /// its scope in `rebuild`. Returns the oldest sequence kept (nil when the log is empty).
    package func compact(through sequence: Int64?) throws -> Int64? {
        try pool.write { db in
            let newest = try ProtocolTwoStore.maximumSequence(in: db)
            try ProtocolTwoStore.compact(through: sequence ?? (newest - 1), in: db)
            return try ProtocolTwoStore.minimumSequence(in: db)
        }
    }

    /// The highest change-log sequence handed out so far.
    package func maximumSequence() throws -> Int64 {
        try pool.read { db in try ProtocolTwoStore.maximumSequence(in: db) }
    }

    /// Marks every client inactive, as compaction does to clients that did not complete a
    /// rebuild within its threshold: pull, push and rebuild answer 400 "client is not
    /// registered" until the client connects again.
    package func deactivateClients() throws {
        try pool.write { db in try ProtocolTwoStore.deactivateClients(in: db) }
    }
}

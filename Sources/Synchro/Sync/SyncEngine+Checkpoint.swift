import Foundation
import GRDB

/// The write-ahead log file as it stands: its size and when it was last written. Folding the
/// log into the database file (a passive checkpoint) leaves the log file as it is, so the same
/// signature after a fold means nothing was written since.
struct WriteAheadLogSignature: Equatable, Sendable {
    var size: Int64
    var modified: Date?

    /// The signature of `dbPath`'s log; nil when there is none.
    init?(dbPath: String) {
        guard let attributes = try? FileManager.default.attributesOfItem(atPath: dbPath + "-wal") else { return nil }
        size = (attributes[.size] as? NSNumber)?.int64Value ?? 0
        modified = attributes[.modificationDate] as? Date
    }
}

extension SyncEngine {
    /// How long a write waits for another (sync and app writes queue for each other).
    static let busyTimeoutSeconds: TimeInterval = 10

    /// Folds the write-ahead log into the database file in the background, after cycles that
    /// wrote to it, so that `close()` finds nothing to fold.
    ///
    /// `close()` folds the log so that the file alone is the whole database (a copy of it can
    /// seed another device). Folding frames costs a copy and an fsync of the file, 7–10 ms here
    /// after a sync of 10,000 rows. Done here, on the writer's queue right after the cycles, it
    /// is off the caller's path: an app write made meanwhile waits for it, as it waits for a
    /// sync transaction. The fold is passive (it never waits for a reader) and leaves the log
    /// file in place: truncating it would make the next open write to it again (GRDB fills an
    /// empty log), so that an idle session's `close()` would have frames to fold. A cycle that
    /// wrote nothing (the log's signature unchanged since the last fold) schedules nothing.
    func foldWriteAheadLogSoon() {
        guard logNeedsFold() else { return }
        let (dbPath, folded) = (config.dbPath, foldedLog)
        database.asyncWriteWithoutTransaction { db in
            // Busy readers leave frames for the next fold, or close().
            guard let (frames, checkpointed) = try? db.checkpoint(.passive), frames == checkpointed else { return }
            folded.withLock { $0 = WriteAheadLogSignature(dbPath: dbPath) }
        }
    }

    /// Whether the log may hold frames not folded yet: it is not empty, and was written since
    /// the last fold this process saw complete. A hint only (a file's times are coarse): it
    /// spares an idle cycle the fold, and `close()` folds whatever is left regardless.
    func logNeedsFold() -> Bool {
        guard let signature = WriteAheadLogSignature(dbPath: config.dbPath), signature.size > 0 else { return false }
        return signature != foldedLog.current
    }
}

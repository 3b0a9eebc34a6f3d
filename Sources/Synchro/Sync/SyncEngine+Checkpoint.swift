import Foundation
import GRDB

extension SyncEngine {
    /// How long a write waits for another (sync and app writes queue for each other).
    static let busyTimeoutSeconds: TimeInterval = 10

    /// Folds the write-ahead log into the database file in the background, after cycles, when
    /// something was committed since the last fold, so that `close()` finds nothing to fold.
    ///
    /// `close()` folds the log so that the file alone is the whole database (a copy of it can
    /// seed another device). Folding frames costs a copy and an fsync of the file, 7–10 ms here
    /// after a sync of 10,000 rows. Done here, on the writer's queue right after the cycles, it
    /// is off the caller's path: an app write made meanwhile waits for it, as it waits for a
    /// sync transaction. The fold is passive (it never waits for a reader) and leaves the log
    /// file in place: truncating it would make the next open write to it again (GRDB fills an
    /// empty log), so that an idle session's `close()` would have frames to fold. Cycles that
    /// wrote nothing (no commit since the last fold) schedule nothing.
    ///
    /// The memory those cycles used goes at the same time: the writer's pages (up to 8 MB) and
    /// the statements of many rows the pages and batches compiled (670 KB after pushing 10,000
    /// rows), on the writer and on the readers. Freeing them is most of what closing a
    /// connection costs (0.3–0.6 ms after such a sync); done here, `close()` finds little to
    /// free. The next cycle that writes compiles its statements again and reads its pages from
    /// the file, a few hundred microseconds against the milliseconds a cycle that writes costs.
    func foldWriteAheadLogSoon() {
        guard logFold.queueFold() else { return }
        let state = logFold
        let database = database
        database.asyncWriteWithoutTransaction { db in
            guard state.foldStarts() else { return }
            // Busy readers leave frames for the next fold, or close(). On the writer's queue no
            // commit comes between the checkpoint and the mark.
            if let (frames, checkpointed) = try? db.checkpoint(.passive), frames == checkpointed {
                state.foldCompleted()
            }
            // Queued on each connection after what it is doing; readers stay open (see init).
            database.releaseMemoryEventually()
        }
    }
}

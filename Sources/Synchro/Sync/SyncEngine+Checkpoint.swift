import Foundation
import GRDB

extension SyncEngine {
    /// How long a write waits for another (sync and app writes queue for each other).
    static let busyTimeoutSeconds: TimeInterval = 10

    /// Rows changed since the last fold from which a fold runs right after the cycles, with
    /// the release of their memory; fewer wait (``delayBeforeSmallFold``).
    static let manyRowsToFold = 1_000
    /// How long after the cycles the log of a few rows is folded (a later cycle waits again).
    static let delayBeforeSmallFold: Duration = .seconds(1)

    /// Folds the write-ahead log into the database file in the background, after cycles that
    /// committed something since the last fold, so that `close()` usually finds nothing to fold.
    ///
    /// `close()` folds the log so that the file alone is the whole database (a copy of it can
    /// seed another device). Folding frames costs a copy and an fsync of the file, 7–10 ms here
    /// after a sync of 10,000 rows, and an fsync (about 1 ms) after one row. On the writer's
    /// queue it is off the caller's path, but an app write made meanwhile waits for it, as it
    /// waits for a sync transaction.
    ///
    /// - After cycles that changed many rows (``manyRowsToFold``), or none since the last fold
    ///   (the first cycles of a session that has not written: the log an earlier session left,
    ///   usually with nothing to copy; the memory a warm start took), the fold runs right away, and
    ///   the memory the cycles used goes with it: the writer's pages (up to 8 MB) and the
    ///   statements of many rows the pages and batches compiled (670 KB after pushing 10,000
    ///   rows), on the writer and on the readers. Freeing them is most of what closing a
    ///   connection costs (0.3–0.6 ms after such a sync); done here, `close()` finds little
    ///   to free.
    /// - After cycles that changed a few (an edit pushed, a change pulled), it waits
    ///   ``delayBeforeSmallFold``, and a later cycle waits again: an app that edits and syncs in
    ///   quick succession would otherwise pay an fsync per edit, and, with the memory
    ///   released, its statements compiled again (2.4 ms of an 11 ms edit cycle here). A
    ///   `close()` within that second folds those few rows itself.
    ///
    /// The fold is passive (it never waits for a reader) and leaves the log file in place:
    /// truncating it would make the next open write to it again (GRDB fills an empty log), so
    /// that an idle session's `close()` would have frames to fold.
    func foldWriteAheadLogSoon() {
        switch logFold.planAfterCycles(manyRows: Self.manyRowsToFold) {
        case .nothing: return
        case .foldNow: foldWriteAheadLog(releasingMemory: true)
        case .foldLater:
            logFold.wait(
                Task { [weak self] in
                    guard (try? await Task.sleep(for: Self.delayBeforeSmallFold)) != nil else { return }
                    self?.foldWriteAheadLog(releasingMemory: false)
                }
            )
        }
    }

    /// Queues the fold on the writer, unless one is queued, the log is folded, or the database
    /// is closing (``LogFoldState``).
    private func foldWriteAheadLog(releasingMemory: Bool) {
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
            if releasingMemory { database.releaseMemoryEventually() }
        }
    }
}

import GRDB
import SelfDBRuntime

/// Whether the write-ahead log holds frames not yet folded into the database file (cleared by
/// every commit on the writer, ``CommitWatch``; set by a fold that took every frame), how many
/// rows the writer changed since the last fold, the folds queued on the writer, so that none
/// runs after the database is closed, and the fold waiting its second after the cycles.
final class LogFoldState: Sendable {
    /// What to do about the log after sync cycles (``SyncEngine/foldWriteAheadLogSoon()``).
    enum Plan: Equatable {
        /// Nothing to fold, a fold already queued, or closed.
        case nothing
        /// Many rows changed, or none since the last fold (a log an earlier session left, a fold
        /// a reader cut short: nothing or little to copy): fold now, and release the memory.
        case foldNow
        /// A few rows changed: fold a second after the cycles (a later cycle waits again).
        case foldLater
    }

    private struct State {
        /// True only after a complete fold with no commit since. False at open: what an
        /// earlier session left is not known.
        var folded = false
        var queued = 0
        var closed = false
        /// The writer's count of changed rows (`Database.totalChangesCount`) at its last commit,
        /// and when the last fold started.
        var changesAtCommit = 0
        var changesAtFold = 0
        var waiting: Task<Void, Never>?
    }

    private let state = Locked(State())

    func commitHappened(changes: Int) {
        state.withLock { state in
            state.folded = false
            state.changesAtCommit = changes
        }
    }

    /// The plan after cycles: fold now when `manyRows` rows or none changed since the last
    /// fold, later when a few did.
    func planAfterCycles(manyRows: Int) -> Plan {
        state.withLock { state in
            guard !state.folded, state.queued == 0, !state.closed else { return .nothing }
            let changed = state.changesAtCommit - state.changesAtFold
            return changed == 0 || changed >= manyRows ? .foldNow : .foldLater
        }
    }

    /// Keeps `task`, the fold waiting its second, instead of the one before (cancelled).
    func wait(_ task: Task<Void, Never>) {
        let replaced = state.withLock { state -> Task<Void, Never>? in
            defer { state.waiting = task }
            return state.waiting
        }
        replaced?.cancel()
    }

    /// Whether a fold is to be queued now: something to fold, none queued, not closed.
    func queueFold() -> Bool {
        state.withLock { state in
            guard !state.folded, state.queued == 0, !state.closed else { return false }
            state.queued += 1
            return true
        }
    }

    /// A queued fold starts, on the writer's queue; false when `close()` came first (it folds).
    func foldStarts() -> Bool {
        state.withLock { state in
            state.queued -= 1
            if !state.closed { state.changesAtFold = state.changesAtCommit }
            return !state.closed
        }
    }

    func foldCompleted() { state.withLock { $0.folded = true } }

    /// Whether the last fold took every frame, with no commit since.
    var isFolded: Bool { state.withLock { $0.folded } }

    /// Marks the database closing; no fold is queued from now on, and the one waiting for a
    /// second after the cycles is cancelled. Returns whether `close()` must fold (or wait, on the
    /// writer's queue, for a fold queued before).
    func close() -> Bool {
        // Cancelled under the lock: a tuple with a task, returned, costs the runtime the
        // building of its type at the first close of a process (see SyncEngine.stop).
        state.withLock { state in
            state.closed = true
            state.waiting?.cancel()
            state.waiting = nil
            return !state.folded || state.queued > 0
        }
    }
}

/// Tells a ``LogFoldState`` of each commit on the writer, with the rows changed so far. It
/// observes no row change, only commits (an empty transaction counts too: erring on the side of
/// a fold).
final class CommitWatch: TransactionObserver, Sendable {
    let state: LogFoldState

    init(_ state: LogFoldState) { self.state = state }

    func observes(eventsOfKind eventKind: DatabaseEventKind) -> Bool { false }
    func databaseDidChange(with event: DatabaseEvent) {}
    func databaseDidCommit(_ db: Database) { state.commitHappened(changes: db.totalChangesCount) }
    func databaseDidRollback(_ db: Database) {}
}

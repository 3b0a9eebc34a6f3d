import GRDB
import SelfDBRuntime

/// Whether the write-ahead log holds frames not yet folded into the database file (cleared by
/// every commit on the writer, ``CommitWatch``; set by a fold that took every frame), and the
/// folds queued on the writer, so that none runs after the database is closed.
final class LogFoldState: Sendable {
    private struct State {
        /// True only after a complete fold with no commit since. False at open: what an
        /// earlier session left is not known.
        var folded = false
        var queued = 0
        var closed = false
    }

    private let state = Locked(State())

    func commitHappened() { state.withLock { $0.folded = false } }

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
            return !state.closed
        }
    }

    func foldCompleted() { state.withLock { $0.folded = true } }

    /// Marks the database closing; no fold is queued from now on. Returns whether `close()`
    /// must fold (or wait, on the writer's queue, for a fold queued before).
    func close() -> Bool {
        state.withLock { state in
            state.closed = true
            return !state.folded || state.queued > 0
        }
    }
}

/// Tells a ``LogFoldState`` of each commit on the writer. It observes no row change, only
/// commits (an empty transaction counts too: erring on the side of a fold).
final class CommitWatch: TransactionObserver, Sendable {
    let state: LogFoldState

    init(_ state: LogFoldState) { self.state = state }

    func observes(eventsOfKind eventKind: DatabaseEventKind) -> Bool { false }
    func databaseDidChange(with event: DatabaseEvent) {}
    func databaseDidCommit(_ db: Database) { state.commitHappened() }
    func databaseDidRollback(_ db: Database) {}
}

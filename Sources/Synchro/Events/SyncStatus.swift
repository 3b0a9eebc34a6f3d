import Foundation

/// What the sync loop is doing.
public enum SyncStatus: Sendable, Equatable {
    /// Started and waiting for the next cycle.
    case idle
    /// A cycle is pushing or pulling.
    case syncing
    /// The last cycle failed; it is tried again at `retryAt`, or not before the next trigger
    /// when `nil`.
    case error(retryAt: Date?)
    /// Not started, or stopped.
    case stopped
}

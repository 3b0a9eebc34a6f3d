/// A failure the sync server simulates while applying pushed changes; see
/// `SelfDBEmulator.injectSyncPushFailure(_:count:)`.
public enum SyncPushFailure: Sendable, Equatable {
    /// The next change that reaches its write fails there and is answered
    /// `rejected_retryable` with the write's reason: `create_failed`, `update_failed`,
    /// `delete_failed` or `resurrection_failed`.
    case writeFailed
    /// The next change that names a pushable table and a known operation is answered
    /// `rejected_retryable` with `internal_error`.
    case internalError
}

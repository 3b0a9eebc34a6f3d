/// Options of one ``SynchroClient/start(options:)``.
public struct SyncOptions: Sendable {
    /// Called once, after `start`'s first sync cycle has completed (pushed and pulled), before
    /// `start` returns; also when that cycle ended with changes the server refused for good
    /// (`start` then throws `pushRejected`), since the data is in sync all the same. Not called
    /// when `start` fails. Runs on the task that called `start`.
    public var initialSyncCompleted: (@Sendable () -> Void)?

    /// Creates options; with no callback, `start(options:)` is `start()`.
    public init(initialSyncCompleted: (@Sendable () -> Void)? = nil) {
        self.initialSyncCompleted = initialSyncCompleted
    }
}

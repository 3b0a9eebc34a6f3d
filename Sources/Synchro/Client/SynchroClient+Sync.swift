import Foundation

extension SynchroClient {
    /// Fetches the server's schema (creating or migrating the synced tables), registers this
    /// client, takes a snapshot on first use, runs one cycle, and keeps syncing every
    /// `syncInterval` and after local writes. Throws `alreadyStarted` when already started;
    /// on any other failure the client stays stopped and can be started again.
    public func start() async throws {
        try await engine.start()
    }

    /// Runs a push-then-pull cycle now (merged with one already running) and returns when
    /// it is done. Throws `notStarted` before `start()`, `pushRejected` when the server
    /// refused changes for good (the cycle itself completed).
    public func syncNow() async throws {
        try await engine.syncNow()
    }

    /// Stops the sync loop; a cycle under way is cancelled. Local reads and writes go on.
    public func stop() {
        engine.stop()
    }

    /// The sync loop's state now.
    public var status: SyncStatus { engine.status }

    /// Calls `callback` on every status change.
    public func onStatusChange(_ callback: @escaping @Sendable (SyncStatus) -> Void) -> SynchroCancellable {
        engine.statusHandlers.add(callback)
    }

    /// Calls `callback` for every pushed change the server refused because its own version
    /// won (the server's version then replaces the local row).
    public func onConflict(_ callback: @escaping @Sendable (ConflictEvent) -> Void) -> SynchroCancellable {
        engine.conflictHandlers.add(callback)
    }

    /// Asks before a full resync that replaces the synced tables (after the server compacted
    /// its change log past this client's checkpoint). Every handler must return `true`;
    /// one `false` makes the cycle throw `snapshotRequired`. With no handler, the resync
    /// goes ahead.
    public func onSnapshotRequired(_ handler: @escaping @Sendable () async -> Bool) -> SynchroCancellable {
        engine.snapshotHandlers.add(handler)
    }
}

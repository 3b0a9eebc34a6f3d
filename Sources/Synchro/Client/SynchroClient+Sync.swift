import Foundation

extension SynchroClient {
    /// Fetches the server's schema (creating or migrating the synced tables), registers this
    /// client, takes a snapshot on first use, runs one cycle, and keeps syncing every
    /// `syncInterval` and after local writes. Throws `alreadyStarted` when already started;
    /// on any other failure the client stays stopped and can be started again.
    /// `options.initialSyncCompleted` is called once that first cycle has completed.
    public func start(options: SyncOptions? = nil) async throws {
        try await engine.start(options: options)
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

    /// Calls `callback` for every pushed change the server refused for good or lost to the
    /// server's version, as it is recorded in `_synchro_rejected_mutations` (conflicts also go
    /// to ``onConflict(_:)``). Rejections stay in that table until the app deletes them.
    public func onMutationRejected(_ callback: @escaping @Sendable (MutationRejection) -> Void) -> SynchroCancellable {
        engine.rejectionHandlers.add(callback)
    }

    /// The changes the server refused (or lost to its version) and not cleared yet, oldest
    /// first: `_synchro_rejected_mutations` read for you.
    public func rejectedMutations() throws -> [MutationRejection] {
        try databaseOperation { try database.read { db in try RejectedMutations.all(in: db) } }
    }

    /// Asks before a full resync that replaces the synced tables (after the server compacted
    /// its change log past this client's checkpoint). Every handler must return `true`;
    /// one `false` makes the cycle throw `snapshotRequired`. With no handler, the resync
    /// goes ahead.
    public func onSnapshotRequired(_ handler: @escaping @Sendable () async -> Bool) -> SynchroCancellable {
        engine.snapshotHandlers.add(handler)
    }
}

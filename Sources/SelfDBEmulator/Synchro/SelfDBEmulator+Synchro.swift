import Foundation
import GRDB
import SynchroEmulator

/// In-process test hooks of the Synchro sync server. None is reachable over HTTP. Each
/// throws ``SyncHookError/syncDisabled`` when the emulator runs without sync specs.
extension SelfDBEmulator {
    /// Why a sync test hook could not answer.
    public enum SyncHookError: Error, Equatable {
        /// The emulator was started without ``Configuration/syncSpecs``.
        case syncDisabled
        /// No synced table has this SQL name.
        case unknownTable(String)
        /// The hook needs the emulator to speak protocol 2 (``Configuration/syncProtocol``).
        case needsProtocolTwo
        /// The row given to ``SelfDBEmulator/writeSyncedRow(table:values:)`` cannot be
        /// written; why.
        case invalidRow(String)
    }

    /// The schema's version, hash and tables; nil when sync is off.
    public var syncSchema: SyncSchemaInfo? {
        services.synchro.map { SyncSchemaInfo(version: $0.schemaVersion, hash: $0.schema.hash, tables: $0.schema.tables.map(\.name)) }
    }

    /// Compacts the change log.
    ///
    /// Protocol 1: drops every entry up to `sequence` (by default all of them) and raises the
    /// retention floor to it, so a pull from an older checkpoint answers `snapshot_required`
    /// with `checkpoint_before_retention`. Returns the new floor.
    ///
    /// Protocol 2 (the real server's `synchro_compact`): drops every entry up to `sequence`
    /// (by default all but the newest), so a cursor below the oldest entry kept has its scope
    /// listed in `rebuild`. Returns the oldest sequence kept (0 when the log is empty).
    @discardableResult
    public func compactSyncLog(through sequence: Int64? = nil) throws -> Int64 {
        let server = try synchro()
        if let protocolTwo = server.protocolTwo {
            return try protocolTwo.compact(through: sequence) ?? 0
        }
        return try server.store.pool.write { db in
            try ChangeLog.compact(through: sequence ?? Int64.max, in: db)
        }
    }

    /// Protocol 2: marks every sync client inactive, as compaction does to clients past its
    /// staleness threshold; their pull, push and rebuild answer 400 "client is not registered"
    /// until they connect again. Throws ``SyncHookError/needsProtocolTwo`` on protocol 1.
    public func deactivateSyncClients() throws {
        guard let protocolTwo = try synchro().protocolTwo else { throw SyncHookError.needsProtocolTwo }
        try protocolTwo.deactivateClients()
    }

    /// The highest change-log sequence number handed out so far (what a snapshot started
    /// now would use as its checkpoint).
    public func syncLogMaximumSequence() throws -> Int64 {
        let server = try synchro()
        if let protocolTwo = server.protocolTwo { return try protocolTwo.maximumSequence() }
        return try server.store.pool.read { db in try ChangeLog.maximumSequence(in: db) }
    }

    /// The number of rows of `table` owned by `userID` (by everyone when nil), without the
    /// soft-deleted ones unless asked.
    public func syncedRowCount(table: String, userID: String? = nil, includeDeleted: Bool = false) throws -> Int {
        let (server, synced) = try synchroTable(table)
        return try server.store.pool.read { db in
            try SyncRowStore.count(synced, owner: userID?.lowercased(), includeDeleted: includeDeleted, in: db)
        }
    }

    /// The row of `table` with this id (compared case-insensitively), soft-deleted or not.
    public func syncedRow(table: String, id: String) throws -> SyncedRow? {
        let (server, synced) = try synchroTable(table)
        return try server.store.pool.read { db in
            try SyncRowStore.find(synced, id: id.lowercased(), in: db).map { SyncedRow($0, table: synced) }
        }
    }

    /// Makes the next `count` pushed changes fail as `failure` describes, to exercise a
    /// client's handling of `rejected_retryable`.
    public func injectSyncPushFailure(_ failure: SyncPushFailure = .writeFailed, count: Int = 1) throws {
        try synchro().injectPushFailure(failure, count: count)
    }

    /// An access token the sync server (and SelfDB) accepts for `userID`, signed with the
    /// emulator's key; no SelfDB account is needed for `/sync/*`.
    public func syncAccessToken(forUser userID: String, lifetime: TimeInterval = 3600) -> String {
        let expiresAt = Int64((Date().timeIntervalSince1970 + lifetime).rounded(.up))
        return services.jwt.sign(.init(subject: userID, role: "USER", expiresAt: expiresAt))
    }

    private func synchro() throws -> SynchroServer {
        guard let server = services.synchro else { throw SyncHookError.syncDisabled }
        return server
    }

    private func synchroTable(_ name: String) throws -> (SynchroServer, SyncTable) {
        let server = try synchro()
        guard let table = server.schema.table(name) else { throw SyncHookError.unknownTable(name) }
        return (server, table)
    }
}

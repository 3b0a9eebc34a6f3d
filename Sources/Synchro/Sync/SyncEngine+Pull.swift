import Foundation
import GRDB
import SelfDBRuntime

extension SyncEngine {
    /// Pulls pages until the server has nothing more. Each page — its records, its deletes
    /// and the new checkpoint — is applied in one transaction, so a crash repeats at most
    /// that page.
    func pullAll() async throws {
        let schema = try currentSchema()
        let applier = RecordApplier(schema: schema)
        let limit = SynchroConfig.clamped(config.pullPageSize)
        while true {
            let checkpoint = try await database.read { db in try MetaStore.int64(.checkpoint, in: db) }
            let page = try await api.sync.pull(
                PullRequest(
                    clientId: config.clientID,
                    checkpoint: checkpoint,
                    limit: limit,
                    schemaVersion: schema.version,
                    schemaHash: schema.hash
                )
            )
            if page.snapshotRequired {
                try await snapshotRequired(reason: page.snapshotReason)
                return
            }
            // Asking again from the same checkpoint would get the same page forever; a page
            // that cannot be right is not applied either.
            guard !page.hasMore || page.checkpoint > checkpoint else {
                throw SynchroError.invalidResponse(message: "pull said it has more but moved the checkpoint no further (\(checkpoint))")
            }
            let now = TimestampParser.format(Date())
            try await database.write { db in
                try MetaStore.withSyncLock(db) {
                    try applier.merge(page.changes, in: db)
                    for deleted in page.deletes {
                        try applier.markDeleted(table: deleted.tableName, id: deleted.id, at: now, in: db)
                    }
                }
                try MetaStore.advanceCheckpoint(to: page.checkpoint, in: db)
            }
            if !page.changes.isEmpty || !page.deletes.isEmpty {
                config.logger.info(
                    "sync pulled \(page.changes.count) record\(page.changes.count == 1 ? "" : "s") and \(page.deletes.count) delete\(page.deletes.count == 1 ? "" : "s") (checkpoint \(page.checkpoint))"
                )
            }
            if !page.hasMore { return }
        }
    }

    /// The server cannot bring this client up to date from its checkpoint: a first sync
    /// takes a snapshot straight away; otherwise local changes are pushed first and every
    /// `onSnapshotRequired` handler must agree before the synced tables are rebuilt.
    private func snapshotRequired(reason: SnapshotReason?) async throws {
        if reason == .initialSyncRequired {
            try await snapshot(rebuild: false)
            return
        }
        _ = try await pushAll()
        for handler in snapshotHandlers.all where await handler() == false {
            throw SynchroError.snapshotRequired
        }
        try await snapshot(rebuild: true)
    }
}

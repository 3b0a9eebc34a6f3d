import Foundation
import GRDB
import SelfDBRuntime

extension SyncEngine {
    /// Takes a full snapshot page by page. The first page of a rebuild clears the synced
    /// tables (rows with pending changes stay); each page is applied together with the
    /// cursor of the next, so a snapshot interrupted by a crash resumes where it stopped;
    /// the last page stores the checkpoint the snapshot was taken at.
    func snapshot(rebuild: Bool) async throws {
        let schema = try currentSchema()
        let applier = RecordApplier(schema: schema)
        let limit = SynchroConfig.clamped(config.snapshotPageSize)
        var cursor: SnapshotCursor? = try await database.read { db in
            try MetaStore.string(.snapshotCursor, in: db).flatMap { try? JSONCoding.makeDecoder().decode(SnapshotCursor.self, from: Data($0.utf8)) }
        }
        var first = cursor == nil
        try await database.write { db in try MetaStore.set(.snapshotComplete, "0", in: db) }
        while true {
            let page = try await api.sync.snapshot(
                SnapshotRequest(
                    clientId: config.clientID,
                    cursor: cursor,
                    limit: limit,
                    schemaVersion: schema.version,
                    schemaHash: schema.hash
                )
            )
            let next = page.hasMore ? page.cursor : nil
            if page.hasMore, next == nil {
                throw SynchroError.invalidResponse(message: "a snapshot page says it has more but gives no cursor")
            }
            let clear = first && rebuild
            try await database.write { db in
                try MetaStore.withSyncLock(db) {
                    if clear { try applier.clearForSnapshot(in: db) }
                    try applier.merge(page.records, in: db)
                }
                if let next {
                    let data = try JSONCoding.makeEncoder().encode(next)
                    try MetaStore.set(.snapshotCursor, String(decoding: data, as: UTF8.self), in: db)
                } else {
                    try MetaStore.set(.snapshotCursor, nil, in: db)
                    try MetaStore.set(.snapshotComplete, "1", in: db)
                    // A rebuild starts over from the snapshot's point; a checkpoint never
                    // goes back otherwise.
                    if rebuild {
                        try MetaStore.set(.checkpoint, String(page.checkpoint), in: db)
                    } else {
                        try MetaStore.advanceCheckpoint(to: page.checkpoint, in: db)
                    }
                }
            }
            first = false
            guard let next else { return }
            cursor = next
        }
    }
}

import Foundation
import GRDB

extension SyncEngine {
    /// Pushes every pending change, parents' tables first, in batches of `pushBatchSize`.
    /// Returns the changes the server rejected for good.
    func pushAll() async throws -> [PushResult] {
        let schema = try currentSchema()
        let rank = schema.pushRank
        let applier = RecordApplier(schema: schema)
        let batchSize = SynchroConfig.clamped(config.pushBatchSize)
        var watermark: Int64 = 0
        var rejected: [PushResult] = []
        while true {
            let after = watermark
            let round = try await database.read { db in try PendingQueue.round(after: after, rank: rank, in: db) }
            guard !round.keys.isEmpty else { return rejected }
            watermark = round.highest
            var start = 0
            while start < round.keys.count {
                let keys = round.keys[start..<min(start + batchSize, round.keys.count)]
                start += batchSize
                let outgoing = try await database.write { db in try PendingQueue.prepare(keys, schema: schema, in: db) }
                guard !outgoing.isEmpty else { continue }
                let response =
                    protocolVersion.current == 2
                    ? try await pushBatchV2(outgoing, schema: schema)
                    : try await api.sync.push(
                        PushRequest(
                            clientId: config.clientID,
                            changes: outgoing.map(\.change),
                            schemaVersion: schema.version,
                            schemaHash: schema.hash
                        )
                    )
                let outcome = try await database.write { db in
                    try MetaStore.withSyncLock(db) {
                        try PushSettlement.settle(response, sent: outgoing, schema: schema, applier: applier, in: db)
                    }
                }
                rejected += outcome.rejected
                config.logger.info(
                    "sync pushed \(outgoing.count) change\(outgoing.count == 1 ? "" : "s"), \(outcome.rejected.count) rejected, \(outcome.conflicts.count) conflict\(outcome.conflicts.count == 1 ? "" : "s")"
                )
                for event in outcome.conflicts {
                    for handler in conflictHandlers.all { handler(event) }
                }
            }
        }
    }
}

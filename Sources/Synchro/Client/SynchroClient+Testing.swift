import Foundation
import GRDB

/// Seams for tests and benchmarks that measure the local data paths without a server:
/// `@_spi(Testing) import Synchro`. They run exactly the code a sync runs.
extension SynchroClient {
    /// Installs `tables` as if the server had sent them (tables created or migrated,
    /// triggers installed), without contacting it.
    @_spi(Testing)
    public func installSchema(version: Int64, hash: String, tables: [SyncTable]) throws {
        let schema = try LocalSchema(version: version, hash: hash, tables: tables)
        let installed = engine.schema.current
        try databaseOperation {
            try database.write { db in
                try schema.install(in: db, replacing: installed)
                try LocalSchema.save(version: version, hash: hash, tables: tables, in: db)
            }
        }
        engine.schema.withLock { $0 = schema }
    }

    /// Applies a protocol-2 pull page as the engine does (rows, provenance, cursors, and on a
    /// last page the checksums checked against the rows held); returns the scopes whose
    /// checksum did not match. `scopes` are added first, as a connect would.
    @_spi(Testing)
    public func applyPullPage(_ page: ScopedPullResponse, adding scopes: [String] = []) throws -> [String] {
        let schema = try engine.currentSchema()
        let applier = RecordApplier(schema: schema)
        return try databaseOperation {
            try database.write { db in
                for scope in scopes { try ScopeState.add(scope, in: db) }
                return try SyncEngine.apply(page, schema: schema, applier: applier, replaced: engine.replacedChecksums, in: db)
            }
        }
    }

    /// Applies records as one pull page does: in one transaction, under the sync lock,
    /// skipping records with pending changes or newer local rows.
    @_spi(Testing)
    public func applyPulledRecords(_ records: [SyncRecord]) throws {
        let applier = RecordApplier(schema: try engine.currentSchema())
        try databaseOperation {
            try database.write { db in
                try MetaStore.withSyncLock(db) {
                    try applier.merge(records, in: db)
                }
            }
        }
    }
}

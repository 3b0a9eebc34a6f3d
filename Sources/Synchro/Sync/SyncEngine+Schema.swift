import Foundation
import GRDB

extension SyncEngine {
    /// `start()`'s first steps: the server's schema (tables created or migrated), this
    /// client's registration, and a snapshot when the client has never finished one.
    func bootstrap() async throws {
        try await refreshSchema()
        try await register()
        let (checkpoint, complete) = try await database.read { db in
            (try MetaStore.int64(.checkpoint, in: db), try MetaStore.string(.snapshotComplete, in: db) == "1")
        }
        if checkpoint == 0 || !complete {
            try await recovering { try await snapshot(rebuild: false) }
        }
    }

    /// Fetches the schema and, when it differs from the installed one, creates and migrates
    /// the local tables — keeping every local row, pending change and local-only table.
    func refreshSchema() async throws {
        let response = try await api.sync.schema()
        let fetched = try LocalSchema(version: response.schemaVersion, hash: response.schemaHash, tables: response.tables)
        let installed = schema.current
        guard installed != fetched else { return }
        try await database.write { db in
            try fetched.install(in: db, replacing: installed)
            try LocalSchema.save(version: fetched.version, hash: fetched.hash, tables: response.tables, in: db)
        }
        schema.withLock { $0 = fetched }
    }

    /// Registers (or re-registers) this client with the installed schema.
    func register() async throws {
        let schema = try currentSchema()
        let response = try await api.sync.register(
            RegisterRequest(
                clientId: config.clientID,
                platform: config.platform,
                appVersion: config.appVersion,
                schemaVersion: schema.version,
                schemaHash: schema.hash
            )
        )
        try await database.write { db in
            try MetaStore.set(.clientServerID, response.id, in: db)
        }
    }
}

import Foundation
import GRDB
import SelfDBRuntime

extension SyncEngine {
    /// `start()`'s first steps. Which protocol the server speaks is probed once and kept
    /// (`shared/contracts/synchro-v2.md` §8): protocol 2's connect first, unless the server
    /// spoke protocol 1 last time; a 404 there (a protocol-1 server has no `/sync/connect`)
    /// means protocol 1, and a protocol-1 start that meets a protocol-2 server (no
    /// `/sync/register`, another schema body) moves to protocol 2. A database that moves from
    /// protocol 1 to 2 resyncs fully: every scope is rebuilt, pending writes are kept.
    func bootstrap() async throws {
        let remembered = try await database.read { db in try MetaStore.int64(.protocolVersion, in: db) }
        if remembered == 1 {
            do {
                try await bootstrapProtocolOne()
                return
            } catch let error where Self.meansOtherProtocol(error) {
                config.logger.info("sync: the server no longer speaks protocol 1; trying protocol 2")
            }
        }
        do {
            protocolVersion.withLock { $0 = 2 }
            if remembered == 1 || (remembered == 0 && schema.current != nil) {
                try await database.write { db in
                    try ScopeState.invalidateAll(in: db)
                    try MetaStore.set(.pruneUnheldRows, "1", in: db)
                }
            }
            try await connect()
        } catch let error where remembered != 2 && Self.meansOtherProtocol(error) {
            config.logger.info("sync: the server has no /sync/connect; speaking protocol 1")
            try await bootstrapProtocolOne()
        }
    }

    /// A 404 on the protocol's entry point, or a schema body of the other protocol.
    private static func meansOtherProtocol(_ error: any Error) -> Bool {
        if case .notFound = error as? SelfDBError { return true }
        if case .invalidResponse = error as? SelfDBError { return true }
        return error is DecodingError
    }

    /// Protocol 1's start: schema, registration, a snapshot when none finished.
    private func bootstrapProtocolOne() async throws {
        protocolVersion.withLock { $0 = 1 }
        try await refreshSchema()
        try await register()
        let (checkpoint, complete) = try await database.read { db in
            (try MetaStore.int64(.checkpoint, in: db), try MetaStore.string(.snapshotComplete, in: db) == "1")
        }
        if checkpoint == 0 || !complete {
            try await recovering { try await snapshot(rebuild: false) }
        }
        try await database.write { db in try MetaStore.set(.protocolVersion, "1", in: db) }
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

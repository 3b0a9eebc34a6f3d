import EmulatorSupport
import Foundation
import GRDB
import Hummingbird

/// `/system/status`: whether the instance has been set up, and its version.
///
/// SelfDB counts an instance as initialized from its first successful login on; the flag
/// is kept with the other settings so it survives restarts, as SelfDB's does.
enum SystemRoutes {
    /// What SelfDB v0.0.5 reports as its version here (not the package version).
    static let version = "1.0.0"
    private static let initializedKey = "initialized"

    static func register(in table: inout RouteTable) {
        table.add(.get, "/system/status", status)
    }

    static func status(_ request: APIRequest, _ services: EmulatorServices) async throws -> Response {
        .json(["initialized": .bool(try await isInitialized(services)), "version": .string(version)])
    }

    /// Whether anyone has signed in yet (a restore is refused from then on).
    static func isInitialized(_ services: EmulatorServices) async throws -> Bool {
        try await services.database.pool.read { db in
            try Bool.fetchOne(db, sql: "SELECT 1 FROM _selfdb_settings WHERE key = ?", arguments: [initializedKey]) ?? false
        }
    }

    /// Called after every successful login; only the first one writes.
    static func markInitialized(in db: Database) throws {
        try db.execute(
            sql: "INSERT OR IGNORE INTO _selfdb_settings (key, value) VALUES (?, ?)",
            arguments: [initializedKey, Data([1])]
        )
    }
}

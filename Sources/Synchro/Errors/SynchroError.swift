/// Every error a ``SynchroClient`` throws.
public enum SynchroError: Error, Sendable {
    /// An operation that needs the server was attempted before ``SynchroClient/start(options:)``
    /// finished registering this client.
    case notConnected
    /// The server's schema has not been fetched yet, so the synced tables are unknown.
    case schemaNotLoaded
    /// The table is not one the server syncs.
    case tableNotSynced(String)
    /// The server refused this app version (HTTP 426).
    case upgradeRequired(currentVersion: String, minimumVersion: String)
    /// The client's schema is not the server's (HTTP 409); the client re-fetches the schema
    /// and migrates before it gives up with this.
    case schemaMismatch(serverVersion: Int64, serverHash: String)
    /// The server needs a full snapshot and an ``SynchroClient/onSnapshotRequired(_:)``
    /// handler declined it.
    case snapshotRequired
    /// Push results the client could not settle.
    case pushRejected(results: [PushResult])
    /// The server could not be reached (after the retries).
    case networkError(underlying: any Error)
    /// The server answered with another status than 200.
    case serverError(status: Int, message: String)
    /// A SQLite operation failed.
    case databaseError(underlying: any Error)
    /// A server response could not be decoded or does not make sense.
    case invalidResponse(message: String)
    /// ``SynchroClient/start(options:)`` was called while sync is already running.
    case alreadyStarted
    /// ``SynchroClient/syncNow()`` was called before ``SynchroClient/start(options:)``.
    case notStarted
}

extension SynchroError: CustomStringConvertible {
    /// What went wrong, for logs and alerts.
    public var description: String {
        switch self {
        case .notConnected: "not connected: start() has not registered this client yet"
        case .schemaNotLoaded: "the sync schema has not been loaded from the server yet"
        case .tableNotSynced(let table): "table '\(table)' is not synced by the server"
        case .upgradeRequired(let current, let minimum):
            "the server requires a newer app version (this is \(current), the minimum is \(minimum))"
        case .schemaMismatch(let version, let hash): "schema mismatch: the server is at version \(version) (\(hash.prefix(12)))"
        case .snapshotRequired: "the server requires a full snapshot and it was declined"
        case .pushRejected(let results): "the server rejected \(results.count) pushed change(s)"
        case .networkError(let underlying): "network error: \(underlying)"
        case .serverError(let status, let message): "server error \(status): \(message)"
        case .databaseError(let underlying): "database error: \(underlying)"
        case .invalidResponse(let message): "invalid response: \(message)"
        case .alreadyStarted: "sync is already started"
        case .notStarted: "sync has not been started"
        }
    }
}

extension SynchroError {
    /// The case without underlying errors' or the server's text, for logs.
    var logSummary: String {
        switch self {
        case .networkError(let underlying): "network error (\(type(of: underlying)))"
        case .serverError(let status, _): "server error \(status)"
        case .databaseError(let underlying): "database error (\(type(of: underlying)))"
        case .invalidResponse: "invalid response"
        default: description
        }
    }
}

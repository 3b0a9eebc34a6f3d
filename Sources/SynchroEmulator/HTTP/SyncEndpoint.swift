import Hummingbird

/// The endpoints the sync server answers, matched exactly (no trailing-slash redirects).
enum SyncEndpoint: Sendable {
    case health, schema, tables, register, pull, push, snapshot

    /// Whether `path` belongs to the sync server rather than to SelfDB.
    static func owns(_ path: String) -> Bool {
        path == "/healthz" || path == "/sync" || path.hasPrefix("/sync/")
    }

    /// 404 for an unknown path, 405 for a known one with the wrong method.
    init(method: HTTPRequest.Method, path: String) throws(SyncError) {
        let (endpoint, expected): (SyncEndpoint, HTTPRequest.Method) =
            switch path {
            case "/healthz": (.health, .get)
            case "/sync/schema": (.schema, .get)
            case "/sync/tables": (.tables, .get)
            case "/sync/register": (.register, .post)
            case "/sync/pull": (.pull, .post)
            case "/sync/push": (.push, .post)
            case "/sync/snapshot": (.snapshot, .post)
            default: throw .notFound("not found")
            }
        guard method == expected || (method == .head && expected == .get) else {
            throw SyncError(status: .methodNotAllowed, message: "method not allowed", headers: [.allow: expected.rawValue])
        }
        self = endpoint
    }
}

import EmulatorSupport

/// A protocol-2 request body. The adapter answers shape A for what it checks itself (a body
/// that is not a JSON object, a missing `client_id`); the extension answers the envelope
/// `invalid_request` "invalid <operation> request: …" for a missing or ill-typed field.
struct ProtocolTwoBody: Sendable {
    let object: JSONObject
    /// `connect`, `pull`, `push` or `rebuild`, for the messages.
    let operation: String

    /// Reads the body and its `client_id`, as the adapter does before the extension sees it.
    init(_ bytes: [UInt8], operation: String) throws(SyncError) {
        guard let value = try? JSONParser.parse(bytes), let object = value.objectValue else {
            throw .badRequest("invalid request body")
        }
        if let clientID = object["client_id"], !clientID.isNull, clientID.stringValue == nil {
            throw .badRequest("invalid request body")
        }
        guard let clientID = object["client_id"]?.stringValue, !clientID.isEmpty else {
            throw .badRequest("client_id is required")
        }
        self.object = object
        self.operation = operation
    }

    var clientID: String { object["client_id"]?.stringValue ?? "" }

    func invalid(_ detail: String) -> SyncError {
        .invalidRequest("invalid \(operation) request: \(detail)")
    }

    func string(_ key: String) throws(SyncError) -> String {
        guard let value = object[key], let text = value.stringValue else {
            throw invalid(object[key] == nil ? "missing field `\(key)`" : "invalid type for `\(key)`: expected a string")
        }
        return text
    }

    func optionalString(_ key: String) throws(SyncError) -> String? {
        guard let value = object[key], !value.isNull else { return nil }
        guard let text = value.stringValue else { throw invalid("invalid type for `\(key)`: expected a string") }
        return text
    }

    func int64(_ key: String) throws(SyncError) -> Int64 {
        guard let value = object[key], let number = value.intValue else {
            throw invalid(object[key] == nil ? "missing field `\(key)`" : "invalid type for `\(key)`: expected an integer")
        }
        return number
    }

    func objectMember(_ key: String) throws(SyncError) -> JSONObject {
        guard let value = object[key], let member = value.objectValue else {
            throw invalid(object[key] == nil ? "missing field `\(key)`" : "invalid type for `\(key)`: expected an object")
        }
        return member
    }

    /// `{"version": int64, "hash": string}`.
    func schemaRef(_ key: String = "schema") throws(SyncError) -> (version: Int64, hash: String) {
        let member = try objectMember(key)
        guard let version = member["version"]?.intValue, let hash = member["hash"]?.stringValue else {
            throw invalid("invalid `\(key)`: expected {\"version\": integer, \"hash\": string}")
        }
        return (version, hash)
    }

    /// A map of scope id → `{"cursor": string|null}` (the key may be left out, meaning null).
    func scopeCursors(_ key: String) throws(SyncError) -> [(scope: String, cursor: String?)] {
        let member = try objectMember(key)
        var result: [(scope: String, cursor: String?)] = []
        for (scope, value) in member.members {
            guard let reference = value.objectValue else { throw invalid("invalid `\(key).\(scope)`: expected {\"cursor\": string|null}") }
            switch reference["cursor"] {
            case nil, .null?: result.append((scope, nil))
            case .string(let cursor)?: result.append((scope, cursor))
            default: throw invalid("invalid `\(key).\(scope).cursor`: expected a string or null")
            }
        }
        return result
    }

    /// `limit`: required; ≤ 0 means 100, above 1000 is clamped.
    func limit() throws(SyncError) -> Int {
        let requested = try int64("limit")
        guard requested > 0 else { return 100 }
        return Int(min(requested, 1000))
    }
}

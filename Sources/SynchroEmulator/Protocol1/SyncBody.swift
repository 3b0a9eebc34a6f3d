import EmulatorSupport

/// A request body that must be a JSON object, with typed accessors that answer 400
/// `{"error": "<key> is required"}` (or `... must be ...`) for a missing or mistyped key.
struct SyncBody: Sendable {
    let object: JSONObject

    init(_ bytes: [UInt8]) throws(SyncError) {
        guard let value = try? JSONParser.parse(bytes), let object = value.objectValue else {
            throw .badRequest("invalid request body")
        }
        self.object = object
    }

    init(object: JSONObject) {
        self.object = object
    }

    /// A present, non-null member.
    func value(_ key: String) -> JSONValue? {
        guard let value = object[key], !value.isNull else { return nil }
        return value
    }

    func string(_ key: String) throws(SyncError) -> String {
        guard let value = value(key) else { throw .badRequest("\(key) is required") }
        guard let text = value.stringValue else { throw .badRequest("\(key) must be a string") }
        return text
    }

    func nonEmptyString(_ key: String) throws(SyncError) -> String {
        let text = try string(key)
        guard !text.isEmpty else { throw .badRequest("\(key) must not be empty") }
        return text
    }

    func optionalString(_ key: String) throws(SyncError) -> String? {
        guard value(key) != nil else { return nil }
        return try string(key)
    }

    func int64(_ key: String) throws(SyncError) -> Int64 {
        guard let value = value(key) else { throw .badRequest("\(key) is required") }
        guard let number = value.intValue else { throw .badRequest("\(key) must be an integer") }
        return number
    }

    func optionalInt64(_ key: String) throws(SyncError) -> Int64? {
        guard value(key) != nil else { return nil }
        return try int64(key)
    }

    func optionalStrings(_ key: String) throws(SyncError) -> [String]? {
        guard let value = value(key) else { return nil }
        guard let elements = value.arrayValue else { throw .badRequest("\(key) must be an array of strings") }
        var strings: [String] = []
        for element in elements {
            guard let text = element.stringValue else { throw .badRequest("\(key) must be an array of strings") }
            strings.append(text)
        }
        return strings
    }

    /// A page size: absent or ≤ 0 means the default, anything above the maximum is capped.
    func limit(default defaultLimit: Int = 100, maximum: Int = 1000) throws(SyncError) -> Int {
        guard let requested = try optionalInt64("limit"), requested > 0 else { return defaultLimit }
        return Int(min(requested, Int64(maximum)))
    }

    /// 409 unless the body names the server's schema. `allowUnset` accepts version 0 with
    /// hash "" (a client that has not fetched the schema yet registers with those).
    func checkSchema(version: Int64, hash: String, allowUnset: Bool = false) throws(SyncError) {
        let sentVersion = try int64("schema_version")
        let sentHash = try string("schema_hash")
        if allowUnset, sentVersion == 0, sentHash.isEmpty { return }
        guard sentVersion == version, sentHash == hash else {
            throw .schemaMismatch(version: version, hash: hash)
        }
    }
}

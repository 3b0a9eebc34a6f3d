import Foundation
import Testing

@testable import EmulatorSupport
@testable import SelfDBEmulator
@testable import SynchroEmulator

/// Starts an emulator speaking Synchro protocol 2 with the tasks spec.
func withProtocolTwoEmulator<T>(
    configure: (inout SelfDBEmulator.Configuration) -> Void = { _ in },
    _ body: (SelfDBEmulator, ProtocolTwoClient) async throws -> T
) async throws -> T {
    try await withSyncEmulator(configure: { configuration in
        configuration.syncProtocol = .two
        configure(&configuration)
    }) { emulator, client in
        // A uuid user id: the tasks' owner column is a uuid, which the server keeps canonical.
        try await body(emulator, try await ProtocolTwoClient(client.asUser(ProtocolTwoServerTests.userA, emulator: emulator)))
    }
}

/// Speaks protocol 2 as one user and device: connect, pull with per-scope cursors, push
/// mutations, rebuild a scope; it keeps the cursors and the checksums of the rows it holds,
/// as a client must to check a final page.
struct ProtocolTwoClient: Sendable {
    var http: SyncTestClient
    var schema: JSONValue
    /// Scope → cursor (nil: rebuild).
    var cursors: [String: String?] = [:]
    /// Scope → (table|id → row checksum) of the rows held.
    var held: [String: [String: Int32]] = [:]

    init(_ http: SyncTestClient) async throws {
        self.http = http
        let response = try await http.send("GET", "/sync/schema", credentials: .none)
        try #require(response.status == 200, "schema: \(response.text)")
        schema = ["version": response.json?["schema_version"] ?? 0, "hash": response.json?["schema_hash"] ?? ""]
    }

    func device(_ clientID: String) -> ProtocolTwoClient {
        var copy = self
        copy.http = http.device(clientID)
        copy.cursors = [:]
        copy.held = [:]
        return copy
    }

    var userScope: String { "user:" + http.userID }

    func post(_ path: String, _ body: JSONObject) async throws -> APIResponse {
        var object = body
        if object["client_id"] == nil { object["client_id"] = .string(http.clientID) }
        return try await http.send("POST", path, json: .object(object))
    }

    /// Connects as a fresh or returning client; applies the scope delta.
    @discardableResult
    mutating func connect(schema sent: JSONValue? = nil, protocolVersion: Int64 = 2) async throws -> APIResponse {
        var known = JSONObject()
        for (scope, cursor) in cursors.sorted(by: { $0.key < $1.key }) {
            known[scope] = cursor.map { ["cursor": .string($0)] } ?? [:]
        }
        let response = try await post(
            "/sync/connect",
            JSONObject([
                ("platform", "test"), ("app_version", "1.0.0"), ("protocol_version", .int(protocolVersion)),
                ("schema", sent ?? schema), ("scope_set_version", 0), ("known_scopes", .object(known)),
            ])
        )
        if response.status == 200 { apply(delta: response.json?["scopes"]) }
        return response
    }

    mutating func apply(delta: JSONValue?) {
        for added in delta?["add"]?.arrayValue ?? [] {
            if let id = added["id"]?.stringValue { cursors[id] = .some(nil) }
        }
        for removed in delta?["remove"]?.arrayValue ?? [] {
            if let id = removed.stringValue {
                cursors[id] = nil
                held[id] = nil
            }
        }
    }

    /// One pull page with the current cursors.
    func pullPage(limit: Int = 100, schema sent: JSONValue? = nil) async throws -> APIResponse {
        var scopes = JSONObject()
        for (scope, cursor) in cursors.sorted(by: { $0.key < $1.key }) {
            scopes[scope] = ["cursor": cursor.map(JSONValue.string) ?? .null]
        }
        return try await post(
            "/sync/pull",
            JSONObject([("schema", sent ?? schema), ("scope_set_version", 1), ("scopes", .object(scopes)), ("limit", .int(Int64(limit)))])
        )
    }

    /// Pulls to the end, rebuilding what the server asks for, and checks every final checksum
    /// against the rows held. Returns the pages' changes.
    @discardableResult
    mutating func sync(limit: Int = 100) async throws -> [JSONValue] {
        var changes: [JSONValue] = []
        for _ in 0..<100 {
            let page = try await pullPage(limit: limit)
            try #require(page.status == 200, "pull: \(page.text)")
            let json = try #require(page.json)
            for change in json["changes"]?.arrayValue ?? [] {
                changes.append(change)
                guard let scope = change["scope"]?.stringValue, let key = Self.key(change) else { continue }
                if change["op"] == "upsert", let checksum = change["row_checksum"]?.intValue {
                    held[scope, default: [:]][key] = Int32(truncatingIfNeeded: checksum)
                } else {
                    held[scope]?[key] = nil
                }
            }
            for (scope, cursor) in json["scope_cursors"]?.objectValue?.members ?? [] {
                cursors[scope] = .some(cursor.stringValue)
            }
            apply(delta: json["scope_updates"])
            for scope in json["rebuild"]?.arrayValue?.compactMap(\.stringValue) ?? [] {
                try await rebuild(scope, limit: limit)
            }
            guard json["has_more"] == false else { continue }
            let checksums = try #require(json["checksums"]?.objectValue, "a final page has checksums: \(page.text)")
            var mismatched = false
            for (scope, sent) in checksums.members {
                let local = (held[scope] ?? [:]).values.reduce(Int32(0), ^)
                if sent.stringValue != String(local) {
                    mismatched = true
                    cursors[scope] = .some(nil)
                }
            }
            if !mismatched, (json["rebuild"]?.arrayValue ?? []).isEmpty { return changes }
        }
        Issue.record("pull never reached a final page")
        return changes
    }

    /// Rebuilds `scope` page by page; checks and installs the final cursor and checksum.
    @discardableResult
    mutating func rebuild(_ scope: String, limit: Int = 100) async throws -> (records: Int, pages: Int) {
        var rows: [String: Int32] = [:]
        var cursor: JSONValue = .null
        var pages = 0
        while true {
            let response = try await post("/sync/rebuild", JSONObject([("scope", .string(scope)), ("cursor", cursor), ("limit", .int(Int64(limit)))]))
            try #require(response.status == 200, "rebuild: \(response.text)")
            let json = try #require(response.json)
            pages += 1
            for record in json["records"]?.arrayValue ?? [] {
                if let key = Self.key(record), let checksum = record["row_checksum"]?.intValue { rows[key] = Int32(truncatingIfNeeded: checksum) }
            }
            if json["has_more"] == true {
                #expect(json["final_scope_cursor"] == nil && json["checksum"] == nil, "a page before the last has no final cursor or checksum")
                cursor = try #require(json["cursor"])
                continue
            }
            #expect(json["cursor"] == .null)
            let checksum = try #require(json["checksum"]?.stringValue)
            try #require(checksum == String(rows.values.reduce(Int32(0), ^)), "rebuild checksum \(checksum) for \(rows.count) rows")
            held[scope] = rows
            cursors[scope] = .some(try #require(json["final_scope_cursor"]?.stringValue))
            return (rows.count, pages)
        }
    }

    /// Connects, pushes one task of `user` and pulls: with a null cursor and a log that is no
    /// longer empty, that first pull rebuilds, which gives the client its scope's cursor.
    mutating func connectHoldingACursor(user: String, title: String = "first") async throws {
        try await connect()
        _ = try await pushOne(Mutation2.task(UUID().uuidString, user: user, title: title))
        try await sync()
    }

    func push(_ mutations: [JSONValue], schema sent: JSONValue? = nil) async throws -> APIResponse {
        try await post("/sync/push", JSONObject([("batch_id", "batch"), ("schema", sent ?? schema), ("mutations", .array(mutations))]))
    }

    /// Pushes one mutation and returns its entry (accepted or rejected).
    func pushOne(_ mutation: JSONValue) async throws -> JSONValue {
        let response = try await push([mutation])
        try #require(response.status == 200, "push: \(response.text)")
        let entries = (response.json?["accepted"]?.arrayValue ?? []) + (response.json?["rejected"]?.arrayValue ?? [])
        try #require(entries.count == 1, "one entry: \(response.text)")
        return entries[0]
    }

    static func key(_ change: JSONValue) -> String? {
        guard let table = change["table"]?.stringValue, let id = change["pk"]?["id"]?.stringValue else { return nil }
        return table + "|" + id
    }
}

/// Builders for protocol-2 mutations.
enum Mutation2 {
    static func make(
        _ op: String,
        _ table: String,
        _ id: String,
        key: String = "id",
        columns: JSONValue? = nil,
        clientVersion: String? = SyncTimestamp.now().text,
        base: String? = nil,
        mutationID: String = UUID().uuidString
    ) -> JSONValue {
        var object = JSONObject([("mutation_id", .string(mutationID)), ("table", .string(table)), ("op", .string(op)), ("pk", .object(JSONObject([(key, .string(id))])))])
        if let clientVersion { object["client_version"] = .string(clientVersion) }
        if let base { object["base_version"] = .string(base) }
        if let columns { object["columns"] = columns }
        return .object(object)
    }

    static func task(_ id: String, user: String, title: String, at time: String = SyncTimestamp.now().text) -> JSONValue {
        make("insert", "tasks", id, columns: .object(JSONObject([("id", .string(id)), ("user_id", .string(user)), ("title", .string(title))])), clientVersion: time)
    }
}

import Foundation
import Testing

@testable import EmulatorSupport
@testable import SelfDBEmulator
@testable import SynchroEmulator

/// Specs the sync tests serve.
enum SyncFixture {
    static let repositoryRoot = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent()  // Synchro
        .deletingLastPathComponent()  // SelfDBEmulatorTests
        .deletingLastPathComponent()  // Tests
        .deletingLastPathComponent()

    /// `tasks` owned by `user_id`, `comments` owned through `tasks` via `task_id`.
    static let tasksSpec = repositoryRoot.appendingPathComponent("Spec/Examples/tasks-sync.yaml")

    static let externalSecret = "external-test-secret"

    /// Writes `text` to a fresh temporary spec file (removed with the directory by the caller).
    static func writeSpec(_ text: String, in directory: URL, name: String = "extra-sync.yaml") throws -> URL {
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let url = directory.appendingPathComponent(name)
        try Data(text.utf8).write(to: url)
        return url
    }

    static func temporaryDirectory() -> URL {
        FileManager.default.temporaryDirectory.appendingPathComponent("synchro-test-\(UUID().uuidString)", isDirectory: true)
    }
}

/// Starts an emulator serving the tasks spec (plus whatever `configure` changes), runs
/// `body`, and always stops it.
func withSyncEmulator<T>(
    configure: (inout SelfDBEmulator.Configuration) -> Void = { _ in },
    _ body: (SelfDBEmulator, SyncTestClient) async throws -> T
) async throws -> T {
    var configuration = SelfDBEmulator.Configuration(
        apiKey: Fixture.apiKey,
        passwordHashIterations: 1_000,
        syncSpecs: [SyncFixture.tasksSpec],
        // The protocol-1 tests; protocol 2's have their own harness.
        syncProtocol: .one
    )
    configure(&configuration)
    let emulator = try await SelfDBEmulator.start(configuration)
    do {
        let client = try SyncTestClient(emulator: emulator, user: "user-a")
        let result = try await body(emulator, client)
        await emulator.stop()
        return result
    } catch {
        await emulator.stop()
        throw error
    }
}

/// Speaks Synchro to an emulator over loopback as one user and one device, the way a
/// client does: bearer token, `X-App-Version`, schema version and hash in every body, and
/// never an `X-API-Key`.
struct SyncTestClient: Sendable {
    var api: APIClient
    var token: String
    let userID: String
    var clientID: String
    var appVersion: String? = "1.0.0"
    var schemaVersion: Int64
    var schemaHash: String

    init(emulator: SelfDBEmulator, user: String, clientID: String = "device-1") throws {
        api = APIClient(baseURL: emulator.baseURL)
        userID = user
        token = emulator.syncAccessToken(forUser: user)
        self.clientID = clientID
        let schema = try #require(emulator.syncSchema)
        schemaVersion = schema.version
        schemaHash = schema.hash
    }

    /// The same emulator as another user (or another device with `clientID`).
    func asUser(_ user: String, emulator: SelfDBEmulator, clientID: String = "device-1") throws -> SyncTestClient {
        try SyncTestClient(emulator: emulator, user: user, clientID: clientID)
    }

    func device(_ clientID: String) -> SyncTestClient {
        var copy = self
        copy.clientID = clientID
        return copy
    }

    /// Which bearer token a request carries.
    enum Credentials: Sendable {
        case own, none
        case token(String)
    }

    @discardableResult
    func send(_ method: String, _ path: String, json: JSONValue? = nil, raw: [UInt8]? = nil, credentials: Credentials = .own, headers: [String: String] = [:]) async throws -> APIResponse {
        var headers = headers
        if let appVersion, headers["X-App-Version"] == nil { headers["X-App-Version"] = appVersion }
        let bearer: String? =
            switch credentials {
            case .own: token
            case .none: nil
            case .token(let other): other
            }
        return try await api.send(method, path, json: json, raw: raw, token: bearer, apiKey: .missing, headers: headers)
    }

    /// `body` plus `client_id`, `schema_version` and `schema_hash`.
    func stamped(_ body: JSONObject) -> JSONValue {
        var object = body
        if object["client_id"] == nil { object["client_id"] = .string(clientID) }
        if object["schema_version"] == nil { object["schema_version"] = .int(schemaVersion) }
        if object["schema_hash"] == nil { object["schema_hash"] = .string(schemaHash) }
        return .object(object)
    }

    @discardableResult
    func register() async throws -> APIResponse {
        let response = try await send(
            "POST",
            "/sync/register",
            json: stamped(JSONObject([("platform", "test"), ("app_version", "1.0.0"), ("client_name", "Test device")]))
        )
        try #require(response.status == 200, "register failed: \(response.text)")
        return response
    }

    func push(_ changes: [JSONValue]) async throws -> APIResponse {
        try await send("POST", "/sync/push", json: stamped(JSONObject([("changes", .array(changes))])))
    }

    /// Pushes and returns the single result (accepted or rejected).
    func pushOne(_ change: JSONValue) async throws -> JSONValue {
        let response = try await push([change])
        try #require(response.status == 200, "push failed: \(response.text)")
        let results = (response.json?["accepted"]?.arrayValue ?? []) + (response.json?["rejected"]?.arrayValue ?? [])
        try #require(results.count == 1, "expected one result: \(response.text)")
        return results[0]
    }

    func pull(checkpoint: Int64, limit: Int? = nil, tables: [String]? = nil) async throws -> APIResponse {
        var body = JSONObject([("checkpoint", .int(checkpoint))])
        if let limit { body["limit"] = .int(Int64(limit)) }
        if let tables { body["tables"] = .array(tables.map(JSONValue.string)) }
        return try await send("POST", "/sync/pull", json: stamped(body))
    }

    func snapshot(cursor: JSONValue? = nil, limit: Int? = nil) async throws -> APIResponse {
        var body = JSONObject()
        if let cursor { body["cursor"] = cursor }
        if let limit { body["limit"] = .int(Int64(limit)) }
        return try await send("POST", "/sync/snapshot", json: stamped(body))
    }

    /// Snapshots page by page to the end; the records and the final checkpoint.
    func fullSnapshot(limit: Int) async throws -> (records: [JSONValue], checkpoint: Int64, pages: Int) {
        var records: [JSONValue] = []
        var cursor: JSONValue?
        var pages = 0
        while true {
            let page = try await snapshot(cursor: cursor, limit: limit)
            try #require(page.status == 200, "snapshot failed: \(page.text)")
            pages += 1
            records += page.json?["records"]?.arrayValue ?? []
            guard let next = page.json?["cursor"], !next.isNull else {
                return (records, page.json?["checkpoint"]?.intValue ?? -1, pages)
            }
            try #require(page.json?["has_more"] == true)
            cursor = next
        }
    }
}

/// Builders for push changes.
enum Change {
    static let longAgo = "2020-01-01T00:00:00.000Z"

    static func create(_ table: String, _ id: String, _ data: JSONObject, at clientTime: String = SyncTimestamp.now().text) -> JSONValue {
        change(table, id, "create", data: .object(data), clientUpdatedAt: clientTime)
    }

    static func update(_ table: String, _ id: String, _ data: JSONObject, at clientTime: String = SyncTimestamp.now().text, base: String? = nil) -> JSONValue {
        change(table, id, "update", data: .object(data), clientUpdatedAt: clientTime, base: base)
    }

    static func delete(_ table: String, _ id: String, at clientTime: String = SyncTimestamp.now().text) -> JSONValue {
        change(table, id, "delete", data: .null, clientUpdatedAt: clientTime)
    }

    static func change(_ table: String, _ id: String, _ operation: String, data: JSONValue, clientUpdatedAt: String, base: String? = nil) -> JSONValue {
        var object = JSONObject([
            ("id", .string(id)), ("table_name", .string(table)), ("operation", .string(operation)), ("data", data),
            ("client_updated_at", .string(clientUpdatedAt)),
        ])
        if let base { object["base_updated_at"] = .string(base) }
        return .object(object)
    }

    /// A task row's data (the owner column is left for the server to fill).
    static func task(_ title: String, done: Bool = false) -> JSONObject {
        JSONObject([("title", .string(title)), ("done", .bool(done))])
    }
}

extension JSONValue {
    /// `status` and `reason_code` of a push result, for compact assertions.
    var outcome: String {
        let status = self["status"]?.stringValue ?? "?"
        guard let reason = self["reason_code"]?.stringValue else { return status }
        return "\(status)/\(reason)"
    }
}

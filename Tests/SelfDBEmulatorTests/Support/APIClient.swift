import Foundation
import Testing

@testable import EmulatorSupport
@testable import SelfDBEmulator

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// An HTTP answer with its body parsed as JSON when possible.
struct APIResponse: Sendable {
    var status: Int
    var headers: [String: String]
    var body: [UInt8]

    var json: JSONValue? { try? JSONParser.parse(body) }
    var text: String { String(decoding: body, as: UTF8.self) }
    /// The `detail` of an error body.
    var detail: String? { json?["detail"]?.stringValue }
    /// The `type`s of a 422 body.
    var issueTypes: [String] { json?["detail"]?.arrayValue?.compactMap { $0["type"]?.stringValue } ?? [] }

    func header(_ name: String) -> String? {
        headers.first { $0.key.lowercased() == name.lowercased() }?.value
    }
}

/// Keeps URLSession from following redirects so 307s can be asserted.
private final class NoRedirects: NSObject, URLSessionTaskDelegate, Sendable {
    func urlSession(
        _ session: URLSession,
        task: URLSessionTask,
        willPerformHTTPRedirection response: HTTPURLResponse,
        newRequest request: URLRequest,
        completionHandler: @escaping @Sendable (URLRequest?) -> Void
    ) {
        completionHandler(nil)
    }
}

/// Plain URLSession requests against an emulator.
struct APIClient: Sendable {
    enum APIKey: Sendable {
        case valid, missing
        case other(String)
    }

    let baseURL: URL
    let session: URLSession

    init(baseURL: URL) {
        self.baseURL = baseURL
        let configuration = URLSessionConfiguration.ephemeral
        configuration.timeoutIntervalForRequest = 30
        session = URLSession(configuration: configuration, delegate: NoRedirects(), delegateQueue: nil)
    }

    @discardableResult
    func send(
        _ method: String,
        _ path: String,
        query: [(String, String)] = [],
        json: JSONValue? = nil,
        raw: [UInt8]? = nil,
        token: String? = nil,
        apiKey: APIKey = .valid,
        headers: [String: String] = [:]
    ) async throws -> APIResponse {
        var components = URLComponents(url: baseURL.appendingPathComponent(""), resolvingAgainstBaseURL: false)
        components?.percentEncodedPath = path
        if !query.isEmpty {
            components?.queryItems = query.map { URLQueryItem(name: $0.0, value: $0.1) }
            // URLComponents leaves '+' alone, which servers read as a space.
            let encoded = components?.percentEncodedQuery?.replacingOccurrences(of: "+", with: "%2B")
            components?.percentEncodedQuery = encoded
        }
        guard let url = components?.url else { throw URLError(.badURL) }
        var request = URLRequest(url: url)
        request.httpMethod = method
        switch apiKey {
        case .valid: request.setValue(Fixture.apiKey, forHTTPHeaderField: "X-API-Key")
        case .missing: break
        case .other(let key): request.setValue(key, forHTTPHeaderField: "X-API-Key")
        }
        if let token { request.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization") }
        if let json {
            request.httpBody = Data(JSONWriter.bytes(json))
            request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        }
        if let raw { request.httpBody = Data(raw) }
        for (name, value) in headers { request.setValue(value, forHTTPHeaderField: name) }
        let (data, response) = try await session.data(for: request)
        guard let http = response as? HTTPURLResponse else { throw URLError(.badServerResponse) }
        var fields: [String: String] = [:]
        for (key, value) in http.allHeaderFields {
            if let key = key as? String, let value = value as? String { fields[key] = value }
        }
        return APIResponse(status: http.statusCode, headers: fields, body: Array(data))
    }

    // MARK: Conveniences for the common flows

    func login(_ email: String, _ password: String) async throws -> (access: String, refresh: String) {
        let response = try await send("POST", "/users/token", json: ["email": .string(email), "password": .string(password)])
        try #require(response.status == 200, "login failed: \(response.text)")
        let access = try #require(response.json?["access_token"]?.stringValue)
        let refresh = try #require(response.json?["refresh_token"]?.stringValue)
        return (access, refresh)
    }

    func adminToken() async throws -> String {
        try await login(Fixture.adminEmail, Fixture.adminPassword).access
    }

    /// Registers a user and returns its id and an access token.
    func newUser(_ email: String, password: String = "Password123") async throws -> (id: String, token: String) {
        let created = try await send(
            "POST",
            "/users/",
            json: ["email": .string(email), "password": .string(password), "firstName": "Test", "lastName": "User"]
        )
        try #require(created.status == 201, "create user failed: \(created.text)")
        let id = try #require(created.json?["id"]?.stringValue)
        return (id, try await login(email, password).access)
    }

    /// Creates a table and returns its id.
    func newTable(_ name: String, schema: JSONValue, public isPublic: Bool = false, token: String) async throws -> String {
        let created = try await send(
            "POST",
            "/tables/",
            json: ["name": .string(name), "table_schema": schema, "public": .bool(isPublic)],
            token: token
        )
        try #require(created.status == 201, "create table failed: \(created.text)")
        return try #require(created.json?["id"]?.stringValue)
    }

    /// Creates a bucket and returns its id.
    func newBucket(_ name: String, public isPublic: Bool = false, token: String) async throws -> String {
        let created = try await send("POST", "/storage/buckets/", json: ["name": .string(name), "public": .bool(isPublic)], token: token)
        try #require(created.status == 201, "create bucket failed: \(created.text)")
        return try #require(created.json?["id"]?.stringValue)
    }
}

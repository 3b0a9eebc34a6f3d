import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A running SelfDB server to read table definitions from: its URL, API key and, for private
/// tables, a user (a token, or an email and password to sign in with).
///
/// Plain `URLSession` on every platform: introspection makes a handful of requests from a
/// command-line tool, which needs none of the client's transport machinery, and keeps
/// `selfdb-codegen` free of the client runtime.
public struct TableSource: Sendable {
    /// How the requests are signed in.
    public enum Credentials: Sendable {
        /// Anonymous: public tables only.
        case none
        /// A bearer access token.
        case token(String)
        /// Signs in with `POST /users/token` first.
        case password(email: String, password: String)
    }

    /// The server's base URL.
    public let baseURL: URL
    /// Sent as `X-API-Key` on every request.
    public let apiKey: String
    /// Who the tables are read as.
    public let credentials: Credentials
    let session: URLSession

    /// A source; fails on a URL that is not http(s).
    public init(url: String, apiKey: String, credentials: Credentials = .none) throws {
        guard let parsed = URL(string: url), let scheme = parsed.scheme?.lowercased(), scheme == "http" || scheme == "https", parsed.host != nil else {
            throw IntrospectionError.badURL(url)
        }
        baseURL = parsed
        self.apiKey = apiKey
        self.credentials = credentials
        let configuration = URLSessionConfiguration.ephemeral
        configuration.timeoutIntervalForRequest = 30
        session = URLSession(configuration: configuration)
    }

    /// Every table the server serves to these credentials (`GET /tables/`, 100 at a time),
    /// or those named in `names`, in that order (a name it does not serve throws).
    public func tables(named names: [String] = []) async throws -> [ServerTable] {
        let token = try await accessToken()
        var all: [ServerTable] = []
        for page in 0..<10_000 {
            let batch: [ServerTable] = try await get("tables/", query: [("skip", String(page * 100)), ("limit", "100")], token: token)
            all += batch
            if batch.count < 100 { break }
        }
        guard !names.isEmpty else { return all.sorted { $0.name < $1.name } }
        return try names.map { name in
            guard let table = all.first(where: { $0.name == name }) else { throw IntrospectionError.noSuchTable(name) }
            return table
        }
    }

    private func accessToken() async throws -> String? {
        switch credentials {
        case .none: return nil
        case .token(let token): return token
        case .password(let email, let password):
            struct Pair: Decodable {
                let accessToken: String
                enum CodingKeys: String, CodingKey { case accessToken = "access_token" }
            }
            let body = try JSONSerialization.data(withJSONObject: ["email": email, "password": password])
            let pair: Pair = try await send(path: "users/token", query: [], method: "POST", body: body, token: nil, signingIn: true)
            return pair.accessToken
        }
    }

    private func get<Response: Decodable>(_ path: String, query: [(String, String)], token: String?) async throws -> Response {
        try await send(path: path, query: query, method: "GET", body: nil, token: token, signingIn: false)
    }

    private func send<Response: Decodable>(path: String, query: [(String, String)], method: String, body: Data?, token: String?, signingIn: Bool) async throws -> Response {
        // The path joined as text: `appendingPathComponent` keeps or drops the trailing slash
        // SelfDB's list routes need (`/tables/`) depending on the platform, and SelfDB answers
        // 404 to `/tables//`.
        var components = URLComponents(url: baseURL, resolvingAgainstBaseURL: false)
        let basePath = components?.path ?? ""
        components?.path = (basePath.hasSuffix("/") ? String(basePath.dropLast()) : basePath) + "/" + path
        if !query.isEmpty { components?.queryItems = query.map { URLQueryItem(name: $0.0, value: $0.1) } }
        guard let url = components?.url else { throw IntrospectionError.badURL(baseURL.absoluteString) }
        var request = URLRequest(url: url)
        request.httpMethod = method
        request.setValue(apiKey, forHTTPHeaderField: "X-API-Key")
        request.setValue("application/json", forHTTPHeaderField: "Accept")
        if let token { request.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization") }
        if let body {
            request.httpBody = body
            request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        }
        let shown = "\(method) \(url.absoluteString)"
        let data: Data
        let response: URLResponse
        do {
            (data, response) = try await session.data(for: request)
        } catch {
            throw IntrospectionError.unreachable(url: baseURL.absoluteString, reason: (error as NSError).localizedDescription)
        }
        guard let http = response as? HTTPURLResponse else { throw IntrospectionError.badResponse(url: shown, reason: "not an HTTP answer") }
        let detail = Self.detail(of: data)
        switch http.statusCode {
        case 200..<300:
            do {
                return try JSONDecoder().decode(Response.self, from: data)
            } catch {
                throw IntrospectionError.badResponse(url: shown, reason: "\(error)")
            }
        case 401 where signingIn, 400 where signingIn: throw IntrospectionError.badCredentials(detail: detail)
        case 406: throw IntrospectionError.badAPIKey(url: baseURL.absoluteString)
        case 401 where detail.localizedCaseInsensitiveContains("api key"): throw IntrospectionError.badAPIKey(url: baseURL.absoluteString)
        case 401 where token != nil: throw IntrospectionError.badCredentials(detail: detail)
        default: throw IntrospectionError.refused(url: shown, status: http.statusCode, detail: detail)
        }
    }

    /// SelfDB's `{"detail": …}`, or the start of the body.
    static func detail(of data: Data) -> String {
        if let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any], let detail = object["detail"] {
            return detail as? String ?? "\(detail)"
        }
        return String(decoding: data.prefix(200), as: UTF8.self)
    }
}

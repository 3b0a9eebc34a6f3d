import Foundation

/// Why introspection could not read a server's tables. Each reads as one line.
public enum IntrospectionError: Error, Equatable, Sendable, CustomStringConvertible {
    /// No answer (refused, unknown host, timed out).
    case unreachable(url: String, reason: String)
    /// 401 or 406 on the API key: missing or wrong.
    case badAPIKey(url: String)
    /// The email and password, or the token, were refused.
    case badCredentials(detail: String)
    /// The user may not list tables (403), or the server answered something else not 2xx.
    case refused(url: String, status: Int, detail: String)
    /// The answer was not what SelfDB sends.
    case badResponse(url: String, reason: String)
    /// `--table` named a table the server does not serve (to this user).
    case noSuchTable(String)
    /// The server URL is not an http(s) URL.
    case badURL(String)

    /// The error in one line, for a terminal.
    public var description: String {
        switch self {
        case .unreachable(let url, let reason): "cannot reach \(url): \(reason)"
        case .badAPIKey(let url): "\(url) refused the API key (check --api-key)"
        case .badCredentials(let detail): "sign-in refused: \(detail)"
        case .refused(let url, let status, let detail): "\(url) answered \(status): \(detail)"
        case .badResponse(let url, let reason): "\(url) did not answer as a SelfDB server: \(reason)"
        case .noSuchTable(let name): "the server has no table '\(name)' (or this user may not see it)"
        case .badURL(let text): "'\(text)' is not an http or https URL"
        }
    }
}

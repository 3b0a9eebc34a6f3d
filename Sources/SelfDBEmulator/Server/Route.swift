import EmulatorSupport
import Hummingbird

/// Handles one matched request.
typealias RouteHandler = @Sendable (APIRequest, EmulatorServices) async throws -> Response

/// One endpoint: method, path pattern and handler.
struct Route: Sendable {
    enum Segment: Sendable {
        case literal(String)
        /// A FastAPI `{name:uuid}` parameter: anything that is not a UUID does not match (404).
        case uuid(String)
        case parameter(String)
        /// `{name:path}`: one or more remaining segments joined with `/`.
        case remainder(String)
    }

    /// How much body the route accepts before answering 413.
    enum BodyLimit: Sendable {
        /// Read into memory, up to the JSON body limit.
        case json
        /// Written to a spool file as it arrives (``APIRequest/bodyFile``), up to the file size
        /// limit: an upload of any size (a stored file, a backup to restore) never sits in memory.
        case file
    }

    let method: HTTPRequest.Method
    let segments: [Segment]
    let trailingSlash: Bool
    let bodyLimit: BodyLimit
    let handler: RouteHandler

    /// - Parameter pattern: e.g. `/tables/{table_id:uuid}/data`, `/users/` (slash is significant).
    init(_ method: HTTPRequest.Method, _ pattern: String, body: BodyLimit = .json, handler: @escaping RouteHandler) {
        self.method = method
        self.trailingSlash = pattern.count > 1 && pattern.hasSuffix("/")
        self.segments = pattern.split(separator: "/").map { part in
            guard part.hasPrefix("{"), part.hasSuffix("}") else { return .literal(String(part)) }
            let inner = part.dropFirst().dropLast()
            let pieces = inner.split(separator: ":", maxSplits: 1)
            let name = String(pieces[0])
            switch pieces.count > 1 ? String(pieces[1]) : "" {
            case "uuid": return .uuid(name)
            case "path": return .remainder(name)
            default: return .parameter(name)
            }
        }
        self.bodyLimit = body
        self.handler = handler
    }

    /// The path parameters if `components` fit this route's segments.
    func match(_ components: [String]) -> [String: String]? {
        var parameters: [String: String] = [:]
        var index = 0
        for segment in segments {
            switch segment {
            case .literal(let text):
                guard index < components.count, components[index] == text else { return nil }
            case .uuid(let name):
                guard index < components.count, let id = UUIDText.normalized(components[index]) else { return nil }
                parameters[name] = id
            case .parameter(let name):
                guard index < components.count else { return nil }
                parameters[name] = components[index]
            case .remainder(let name):
                guard index < components.count else { return nil }
                parameters[name] = components[index...].joined(separator: "/")
                return parameters
            }
            index += 1
        }
        return index == components.count ? parameters : nil
    }
}

import Hummingbird

/// Starlette-style routing: exact trailing-slash matching with a 307 to the other
/// spelling, 405 (naming the methods the path serves) when only the method is wrong, 404
/// otherwise.
///
/// FastAPI routes serve exactly the methods they declare: a GET route does not answer HEAD
/// (SelfDB answers 405), so neither does the emulator.
struct RouteTable: Sendable {
    enum Match {
        case found(Route, [String: String])
        case redirect(to: String)
        /// The path exists; `allowed` lists its methods in declaration order, for `Allow`.
        case methodNotAllowed(allowed: [HTTPRequest.Method])
        case notFound
    }

    private(set) var routes: [Route] = []

    mutating func add(_ route: Route) {
        routes.append(route)
    }

    mutating func add(_ method: HTTPRequest.Method, _ pattern: String, body: Route.BodyLimit = .json, _ handler: @escaping RouteHandler) {
        routes.append(Route(method, pattern, body: body, handler: handler))
    }

    func match(method: HTTPRequest.Method, path: String) -> Match {
        let trailingSlash = path.count > 1 && path.hasSuffix("/")
        // An empty segment (`/tables//`, `//tables/`) matches no route on the real server (404);
        // collapsing it would let a client bug pass here and fail in production.
        var segments = path.split(separator: "/", omittingEmptySubsequences: false).dropFirst()
        if trailingSlash { segments = segments.dropLast() }
        if path.count > 1, segments.contains(where: \.isEmpty) { return .notFound }
        let components = segments.map { PercentDecoding.decode(String($0), plusIsSpace: false) }
        var allowed: [HTTPRequest.Method] = []
        for route in routes where route.trailingSlash == trailingSlash {
            guard let parameters = route.match(components) else { continue }
            if route.method == method {
                return .found(route, parameters)
            }
            if !allowed.contains(route.method) { allowed.append(route.method) }
        }
        if !allowed.isEmpty { return .methodNotAllowed(allowed: allowed) }
        // Starlette's redirect_slashes: the other spelling exists for some method.
        for route in routes where route.trailingSlash != trailingSlash && route.match(components) != nil {
            let other = trailingSlash ? String(path.dropLast()) : path + "/"
            return .redirect(to: other)
        }
        return .notFound
    }
}

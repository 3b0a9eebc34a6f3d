import Hummingbird

extension SynchroServer {
    /// Routes a protocol-2 request in the real adapter's middleware order (§2.2): the app
    /// version gate on every path, then the route (404 as Go's text `404 page not found`), then
    /// authentication for the protected routes, then the method (405 with `Allow`; HEAD is a
    /// wrong method), then the body.
    func routeProtocolTwo(_ server: ProtocolTwoServer, _ request: Request, path: String) async throws -> Response {
        do {
            try checkAppVersion(request.headers[.clientVersion] ?? request.headers[.appVersion], missingIsAllowed: true)
        } catch {
            await Self.discard(request.body)
            throw error
        }
        guard let endpoint = ProtocolTwoServer.Endpoint(rawValue: path) else {
            await Self.discard(request.body)
            var response = Response(status: .notFound, headers: [.contentType: "text/plain; charset=utf-8"], body: .init(byteBuffer: ByteBuffer(string: "404 page not found\n")))
            response.headers[.contentLength] = "19"
            return response
        }
        var user = ""
        if endpoint.needsAuthentication {
            guard let header = request.headers[.authorization], header.hasPrefix("Bearer ") else {
                await Self.discard(request.body)
                throw SyncError(status: .unauthorized, message: "missing or malformed authorization header")
            }
            guard let subject = authenticator.userID(bearer: String(header.dropFirst("Bearer ".count))) else {
                await Self.discard(request.body)
                throw SyncError(status: .unauthorized, message: "invalid token")
            }
            user = subject
        }
        guard request.method == endpoint.method else {
            await Self.discard(request.body)
            throw SyncError(status: .methodNotAllowed, message: "method not allowed", headers: [.allow: endpoint.method.rawValue])
        }
        switch endpoint {
        case .schema: return server.schemaResponse()
        case .tables: return server.tablesResponse()
        case .connect: return try await server.connect(try body(of: request, "connect"), user: user)
        case .pull: return try await server.pull(try body(of: request, "pull"), user: user)
        case .push: return try await server.push(try body(of: request, "push"), user: user)
        case .rebuild: return try await server.rebuild(try body(of: request, "rebuild"), user: user)
        }
    }

    private func body(of request: Request, _ operation: String) async throws -> ProtocolTwoBody {
        try ProtocolTwoBody(try await collectBody(request.body), operation: operation)
    }
}

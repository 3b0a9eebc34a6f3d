import Foundation
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
        let subject = user
        switch endpoint {
        case .schema: return server.schemaResponse()
        case .tables: return server.tablesResponse()
        case .connect: return try await transact(request, "connect") { try server.connect($0, user: subject) }
        case .pull: return try await transact(request, "pull") { try server.pull($0, user: subject) }
        case .push: return try await transact(request, "push") { try server.push($0, user: subject) }
        case .rebuild: return try await transact(request, "rebuild") { try server.rebuild($0, user: subject) }
        }
    }

    /// Reads the request's body, then runs `route` over it off the cooperative pool.
    private func transact(
        _ request: Request,
        _ operation: String,
        _ route: @escaping @Sendable (ProtocolTwoBody) throws -> Response
    ) async throws -> Response {
        let body = try ProtocolTwoBody(try await collectBody(request.body), operation: operation)
        return try await Self.offCooperativePool { try route(body) }
    }

    /// Runs a handler's transaction on a dispatch thread. The store's transactions are
    /// synchronous: run in the handler, a push of 1,000 mutations held a thread of Swift's
    /// cooperative pool (two threads on a two-core machine) for its whole length, and with two
    /// requests waiting for the writer, every other task of the process waited too (the app's
    /// own, when the emulator runs inside it, as in the tests and benchmarks).
    static func offCooperativePool<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            DispatchQueue.global(qos: .userInitiated).async { continuation.resume(with: Result { try work() }) }
        }
    }
}

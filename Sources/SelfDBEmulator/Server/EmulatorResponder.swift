import EmulatorSupport
import Foundation
import Hummingbird
import SynchroEmulator

/// The front door every HTTP request goes through: injected faults, the API key, routing,
/// body limits, error mapping, and the request log.
struct EmulatorResponder: HTTPResponder {
    typealias Context = BasicRequestContext

    let services: EmulatorServices
    let routes: RouteTable

    func respond(to request: Request, context: Context) async throws -> Response {
        let started = ContinuousClock.now
        let path = request.uri.path
        let method = request.method.rawValue
        // Until the answer leaves, the response latency included.
        services.controls.begin(method: method, path: path)
        defer { services.controls.end(method: method, path: path) }
        var response: Response
        if let synchro = services.synchro, synchro.handles(path: path) {
            // Synchro: its own auth (no X-API-Key), error shapes and fault shapes.
            let fault = services.controls.takeFault(method: method, path: path)
            response = await synchro.respond(to: request, path: path, fault: fault.map { ($0.status, $0.retryAfter, $0.detail) })
        } else if let fault = services.controls.takeFault(method: method, path: path) {
            await drain(request.body)
            response = Self.response(for: fault)
        } else {
            response = await handle(request, path: path)
        }
        if request.method == .head {
            // Every route answers HEAD with 405, whose JSON body a HEAD answer must not carry.
            response.body = .init()
        }
        // Hummingbird closes the connection after answering a request that asked for it, but
        // says nothing; uvicorn (SelfDB's server) says so, as RFC 9112 §9.6 asks, and libcurl
        // reads only the answer's header to stop reusing the connection.
        if request.headers[.connection]?.lowercased().contains("close") == true {
            response.headers[.connection] = "close"
        }
        let record = RecordedRequest(method: method, path: path, query: request.uri.query, status: response.status.code)
        services.controls.record(record)
        services.configuration.requestHandler?(record, ContinuousClock.now - started)
        await services.controls.waitForHold(method: method, path: path)
        if services.configuration.responseLatency > .zero {
            try? await Task.sleep(for: services.configuration.responseLatency)
        }
        return response
    }

    private static func response(for fault: InjectedFault) -> Response {
        var response = Response.json(
            ["detail": .string(fault.detail)],
            status: HTTPResponse.Status(code: fault.status)
        )
        if let retryAfter = fault.retryAfter {
            response.headers[.retryAfter] = String(retryAfter)
        }
        return response
    }

    private func handle(_ request: Request, path: String) async -> Response {
        do {
            try checkAPIKey(request, path: path)
            switch routes.match(method: request.method, path: path) {
            case .notFound:
                await drain(request.body)
                return APIError.notFound().response
            case .methodNotAllowed(let allowed):
                await drain(request.body)
                let allow = allowed.map(\.rawValue).joined(separator: ", ")
                return APIError(status: .methodNotAllowed, detail: "Method Not Allowed", headers: [.allow: allow]).response
            case .redirect(let target):
                await drain(request.body)
                let host = request.head.authority ?? "127.0.0.1:\(services.configuration.port)"
                let query = request.uri.query.map { "?\($0)" } ?? ""
                return .empty(.temporaryRedirect, headers: [.location: "http://\(host)\(target)\(query)"])
            case .found(let route, let parameters):
                let body: [UInt8]
                var spooled: URL?
                switch route.bodyLimit {
                case .json: body = try await collect(request.body, limit: services.configuration.maximumJSONBodySize)
                case .file:
                    body = []
                    spooled = try await spool(
                        request.body,
                        length: request.headers[.contentLength].flatMap { Int($0) },
                        limit: services.configuration.maximumFileSize
                    )
                }
                defer { if let spooled { try? FileManager.default.removeItem(at: spooled) } }
                var apiRequest = APIRequest(
                    method: request.method,
                    path: path,
                    parameters: parameters,
                    query: QueryParameters(rawQuery: request.uri.query ?? ""),
                    headers: request.headers,
                    body: body
                )
                apiRequest.bodyFile = spooled
                return try await route.handler(apiRequest, services)
            }
        } catch let error as APIError {
            return error.response
        } catch {
            return APIError(status: .internalServerError, detail: "Internal Server Error").response
        }
    }

    /// SelfDB checks the key before routing, so even unknown paths answer 406/401.
    /// Realtime URLs may carry it in the query, as WebSocket clients cannot set headers.
    /// A webhook's public URL needs none: its token is its credential (SelfDB's middleware
    /// skips every path under `/webhooks/trigger/`, whatever route it then reaches).
    private func checkAPIKey(_ request: Request, path: String) throws(APIError) {
        if path.hasPrefix("/webhooks/trigger/") { return }
        var key = request.headers[.apiKey]
        if key == nil, path.hasPrefix("/realtime/") {
            key = QueryParameters(rawQuery: request.uri.query ?? "")["X-API-Key"]
        }
        guard let key else {
            throw APIError(status: .notAcceptable, detail: "Missing required header: X-API-Key")
        }
        guard key == services.configuration.apiKey else {
            throw APIError.unauthorized("Invalid API key")
        }
    }

    /// Reads the whole body, keeping at most `limit` bytes. An oversized body is still
    /// read to its end so the client receives the 413 instead of a reset connection.
    private func collect(_ body: RequestBody, limit: Int) async throws -> [UInt8] {
        var bytes: [UInt8] = []
        var tooLarge = false
        for try await chunk in body {
            if tooLarge { continue }
            if bytes.count + chunk.readableBytes > limit {
                tooLarge = true
                bytes = []
                continue
            }
            bytes.append(contentsOf: chunk.readableBytesView)
        }
        if tooLarge {
            throw APIError(status: .contentTooLarge, detail: "Request body too large (limit \(limit) bytes)")
        }
        return bytes
    }

    /// Writes the whole body to a new spool file, chunk by chunk, keeping at most `limit`
    /// bytes; an oversized body is read to its end (for the 413) and its file removed.
    private func spool(_ body: RequestBody, length: Int?, limit: Int) async throws -> URL {
        let file = services.blobs.spoolFile()
        guard FileManager.default.createFile(atPath: file.path, contents: nil), let handle = try? FileHandle(forWritingTo: file) else {
            await drain(body)
            throw APIError(status: .internalServerError, detail: "Internal Server Error")
        }
        // Whatever goes wrong, nothing of the body is left on disk.
        do {
            defer { try? handle.close() }
            var size = 0
            var tooLarge = false
            for try await chunk in body {
                if tooLarge { continue }
                size += chunk.readableBytes
                if size > limit {
                    tooLarge = true
                    continue
                }
                try handle.write(contentsOf: chunk.readableBytesView)
            }
            if tooLarge { throw APIError(status: .contentTooLarge, detail: "Request body too large (limit \(limit) bytes)") }
            if let declared = length, size < declared {
                // The client went away before the body's end (the stream ends short rather than
                // failing): nothing of it may be stored, as SelfDB's stream raises ClientDisconnect.
                throw APIError.badRequest("The request body ended after \(size) of its \(declared) bytes")
            }
            return file
        } catch {
            try? FileManager.default.removeItem(at: file)
            throw error
        }
    }

    private func drain(_ body: RequestBody) async {
        do {
            for try await _ in body {}
        } catch {
            // Nothing to answer about a body we are discarding.
        }
    }
}

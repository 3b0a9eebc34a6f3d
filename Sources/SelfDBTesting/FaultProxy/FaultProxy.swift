import Foundation
import SelfDBRuntime

/// An HTTP/1.1 proxy on 127.0.0.1 that misbehaves the way mobile networks do, in front of a
/// server on loopback (the emulator, or a real SelfDB): it loses an answer after the server
/// committed, resets a connection before the server sees the request, cuts an answer, holds
/// one, or answers 503/429 itself — on the requests its ``FaultRule``s pick, on kept-alive or
/// fresh connections.
///
/// Each client connection gets a connection of its own to the server, kept alive as the
/// client's is, so "the answer to the second request on a reused connection is lost" means
/// exactly that on both sides. A thread serves each connection with blocking calls. Tests
/// point a client at ``baseURL`` and read what the server holds directly, not through the
/// proxy.
///
/// ```swift
/// let proxy = try FaultProxy(upstream: emulator.baseURL)
/// proxy.add(FaultRule(.loseAnswer, method: "POST", pathContains: "/data", trigger: .probability(0.3)))
/// let selfdb = SelfDB(baseURL: proxy.baseURL, apiKey: key)   // every third insert's answer lost
/// ```
///
/// It also stands for a distant server: with a `roundTrip`, a new connection's first request
/// waits one round trip (its handshake) and every answer one more (its exchange), so what a
/// client's connections cost on a slow network shows on loopback.
public final class FaultProxy: Sendable {
    /// `http://127.0.0.1:<port>` of the proxy.
    public let baseURL: URL
    /// The proxy's port.
    public let port: Int
    private let upstreamPort: Int
    /// The simulated round trip, in seconds.
    private let roundTrip: Double
    /// The listening socket; nil while the proxy is offline.
    private let listener = Locked<ProxySocket?>(nil)
    private let rules = Locked<[(rule: FaultRule, used: Int)]>([])
    private let seen = Locked<[ProxiedRequest]>([])
    private let random: Locked<SplitMix64>
    private let open = Locked<(next: Int, sockets: [Int: ProxySocket])>((0, [:]))
    private let stopped = Locked(false)

    /// Starts a proxy in front of the server at `upstream` (an `http://127.0.0.1:<port>` URL);
    /// `seed` fixes which requests a probability rule picks; `roundTrip` is added to every
    /// exchange and to every new connection (none by default).
    public init(upstream: URL, seed: UInt64 = 46, roundTrip: Duration = .zero) throws {
        guard let upstreamPort = upstream.port, upstream.host == "127.0.0.1" || upstream.host == "localhost" else {
            throw ProxyError(step: "upstream \(upstream) is not http://127.0.0.1:<port>", code: 0)
        }
        self.upstreamPort = upstreamPort
        let parts = roundTrip.components
        self.roundTrip = Double(parts.seconds) + Double(parts.attoseconds) / 1e18
        let (socket, port) = try ProxySocket.listening()
        self.port = port
        random = Locked(SplitMix64(seed: seed))
        baseURL = URL(string: "http://127.0.0.1:\(port)") ?? upstream
        listen(on: socket)
    }

    /// The network goes away: the port refuses connections, and open ones are reset.
    public func goOffline() {
        listener.withLock { listener in
            listener?.shutDown()
            listener?.finish()
            listener = nil
        }
        for socket in open.withLock({ Array($0.sockets.values) }) { socket.shutDown() }
    }

    /// The network comes back, on the same port.
    public func goOnline() throws {
        guard listener.current == nil, !stopped.current else { return }
        listen(on: try ProxySocket.listening(port: port).0)
    }

    private func listen(on socket: ProxySocket) {
        listener.withLock { $0 = socket }
        let thread = Thread { [self] in acceptLoop(socket) }
        thread.name = "fault-proxy-accept"
        thread.start()
    }

    deinit {
        stop()
    }

    /// Stops accepting and ends every open connection.
    public func stop() {
        let wasStopped = stopped.withLock { value in
            defer { value = true }
            return value
        }
        guard !wasStopped else { return }
        goOffline()
    }

    /// Adds a rule after the ones set before; the first rule that matches a request and fires
    /// decides its fault.
    public func add(_ rule: FaultRule) {
        rules.withLock { $0.append((rule, 0)) }
    }

    /// Drops every rule: requests go through untouched from now on.
    public func clearRules() {
        rules.withLock { $0.removeAll() }
    }

    /// Every request seen, in the order they arrived.
    public var requests: [ProxiedRequest] { seen.current }

    /// The requests seen of `method` on paths starting with `prefix` (and containing
    /// `contains`, when given).
    public func requests(_ method: String, pathPrefix prefix: String = "/", contains: String? = nil) -> [ProxiedRequest] {
        seen.current.filter { $0.method == method && $0.path.hasPrefix(prefix) && (contains.map($0.path.contains) ?? true) }
    }

    /// How many client connections the proxy accepted.
    public var connectionsAccepted: Int { open.current.next }

    /// How many requests got a fault.
    public var faultsApplied: Int { seen.current.filter { $0.fault != nil }.count }

    /// Forgets the requests seen so far.
    public func resetLog() {
        seen.withLock { $0.removeAll() }
    }

    // MARK: Serving

    private func acceptLoop(_ listener: ProxySocket) {
        while let client = listener.nextConnection() {
            if stopped.current {
                client.finish()
                return
            }
            let id = track(client)
            let thread = Thread { [self] in
                serve(client) { untrack(id) }
            }
            thread.name = "fault-proxy-connection"
            thread.start()
        }
    }

    /// Serves `client` until it or the server ends the connection; `untrack` runs before the
    /// client's socket is closed (its descriptor may be reused at once).
    private func serve(_ client: ProxySocket, untrack: () -> Void) {
        defer { untrack() }
        let requests = HTTPMessageReader(client)
        var upstream: (socket: ProxySocket, reader: HTTPMessageReader)?
        defer { upstream?.socket.finish() }
        var served = 0
        // The handshake's round trip, before the first request can arrive.
        if roundTrip > 0 { Thread.sleep(forTimeInterval: roundTrip) }
        while let request = requests.request(), let (method, target) = request.requestLine {
            let path = String(target.prefix { $0 != "?" })
            let reused = served > 0
            served += 1
            let fault = fault(forMethod: method, path: path, reused: reused)
            let index = seen.withLock { log in
                log.append(ProxiedRequest(method: method, path: path, reusedConnection: reused, fault: fault))
                return log.count - 1
            }
            switch fault {
            case .resetBeforeRequest?:
                client.reset()
                return
            case .answer(let status, let retryAfter)?:
                guard client.write(Self.cannedAnswer(status: status, retryAfter: retryAfter)) else { return }
                seen.withLock { if index < $0.count { $0[index].delivered = true } }
                continue
            default:
                break
            }
            if let server = upstream, server.socket.peerHasClosed() {
                server.socket.finish()
                upstream = nil
            }
            if upstream == nil, let socket = try? ProxySocket.connected(to: upstreamPort) {
                upstream = (socket, HTTPMessageReader(socket))
            }
            guard let server = upstream, server.socket.write(request.raw), let response = server.reader.response(toMethod: method) else {
                client.finish()
                return
            }
            seen.withLock { if index < $0.count { $0[index].status = response.status } }
            if response.closesConnection {
                server.socket.finish()
                upstream = nil
            }
            switch fault {
            case .loseAnswer?:
                client.finish()
                return
            case .cutAnswer(let fraction)?:
                let bodyLength = response.raw.count - response.bodyOffset
                let kept = response.bodyOffset + max(0, min(bodyLength - 1, Int(Double(bodyLength) * fraction)))
                client.write(Array(response.raw[..<kept]))
                client.finish()
                return
            case .delayAnswer(let seconds)?:
                Thread.sleep(forTimeInterval: seconds)
            default:
                break
            }
            if roundTrip > 0 { Thread.sleep(forTimeInterval: roundTrip) }
            guard client.write(response.raw) else {
                client.finish()
                return
            }
            seen.withLock { if index < $0.count { $0[index].delivered = true } }
            // Either side's `Connection: close` ends the connection after this exchange, as
            // an HTTP/1.1 intermediary must (RFC 9112 §9.6).
            if response.closesConnection || request.closesConnection {
                client.finish()
                return
            }
        }
        client.finish()
    }

    private func fault(forMethod method: String, path: String, reused: Bool) -> Fault? {
        rules.withLock { rules in
            for index in rules.indices where rules[index].rule.matches(method: method, path: path, reused: reused) {
                let fires: Bool
                switch rules[index].rule.trigger {
                case .always: fires = true
                case .first(let count): fires = rules[index].used < count
                case .probability(let chance): fires = random.withLock { Double.random(in: 0..<1, using: &$0) } < chance
                }
                if fires {
                    rules[index].used += 1
                    return rules[index].rule.fault
                }
            }
            return nil
        }
    }

    private static func cannedAnswer(status: Int, retryAfter: Int?) -> [UInt8] {
        let reason = status == 429 ? "Too Many Requests" : status == 503 ? "Service Unavailable" : "Error"
        let body = "{\"detail\":\"\(reason)\"}"
        var head = "HTTP/1.1 \(status) \(reason)\r\nContent-Type: application/json\r\nContent-Length: \(body.utf8.count)\r\n"
        if let retryAfter { head += "Retry-After: \(retryAfter)\r\n" }
        return Array((head + "\r\n" + body).utf8)
    }

    private func track(_ socket: ProxySocket) -> Int {
        open.withLock { open in
            open.next += 1
            open.sockets[open.next] = socket
            return open.next
        }
    }

    private func untrack(_ id: Int) {
        open.withLock { _ = $0.sockets.removeValue(forKey: id) }
    }
}

import Foundation

#if canImport(Darwin)
import Darwin
#else
import Glibc
#endif

/// A blocking TCP socket of the fault proxy, on 127.0.0.1. Each connection is served by a
/// thread of its own, so plain blocking calls keep the proxy small and its timing exact.
struct ProxySocket: Sendable {
    let descriptor: Int32

    /// A listening socket on 127.0.0.1 and `port` (0: one the kernel chooses).
    static func listening(port: Int = 0) throws -> (ProxySocket, port: Int) {
        let (socket, port) = try bound(port: port)
        guard listen(socket.descriptor, 64) == 0 else {
            let code = errno
            socket.finish()
            throw ProxyError(step: "listen", code: code)
        }
        return (socket, port)
    }

    /// A socket bound to 127.0.0.1 and `port` (0: one the kernel chooses), not listening.
    static func bound(port: Int = 0) throws -> (ProxySocket, port: Int) {
        let socket = try make()
        var yes: Int32 = 1
        setsockopt(socket.descriptor, SOL_SOCKET, SO_REUSEADDR, &yes, socklen_t(MemoryLayout<Int32>.size))
        var address = loopback(port: port)
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(socket.descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard bound == 0 else {
            let code = errno
            socket.finish()
            throw ProxyError(step: "bind", code: code)
        }
        var chosen = sockaddr_in()
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &chosen) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(socket.descriptor, $0, &length) } }
        return (socket, Int(UInt16(bigEndian: chosen.sin_port)))
    }

    /// A connection to 127.0.0.1:`port`.
    static func connected(to port: Int) throws -> ProxySocket {
        let socket = try make()
        var address = loopback(port: port)
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(socket.descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else {
            let code = errno
            socket.finish()
            throw ProxyError(step: "connect to \(port)", code: code)
        }
        socket.disableNagle()
        return socket
    }

    /// The next connection, or nil once the socket is shut down.
    func nextConnection() -> ProxySocket? {
        while true {
            let client = accept(descriptor, nil, nil)
            if client >= 0 {
                let socket = ProxySocket(descriptor: client)
                socket.noSignalOnWrite()
                socket.disableNagle()
                return socket
            }
            if errno == EINTR || errno == ECONNABORTED { continue }
            return nil
        }
    }

    /// Up to `count` bytes; empty at the end of the stream or on an error.
    func read(upTo count: Int) -> [UInt8] {
        var buffer = [UInt8](repeating: 0, count: count)
        while true {
            let received = buffer.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, count, 0) }
            if received > 0 { return Array(buffer.prefix(received)) }
            if received < 0, errno == EINTR { continue }
            return []
        }
    }

    /// Whether the peer has closed its side (or reset): a readable socket with nothing to read.
    /// A server closes a kept-alive connection it found idle too long (uvicorn after 5 s): the
    /// proxy looks before sending a request on one, as libcurl does.
    func peerHasClosed() -> Bool {
        var entry = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
        guard poll(&entry, 1, 0) == 1 else { return false }
        var byte: UInt8 = 0
        return recv(descriptor, &byte, 1, Int32(MSG_PEEK | MSG_DONTWAIT)) <= 0
    }

    /// Writes all of `bytes`; false when the peer is gone.
    @discardableResult
    func write(_ bytes: [UInt8]) -> Bool {
        var offset = 0
        while offset < bytes.count {
            let sent = bytes.withUnsafeBytes { buffer in
                buffer.baseAddress.map { send(descriptor, $0 + offset, bytes.count - offset, Self.sendFlags) } ?? -1
            }
            if sent > 0 {
                offset += sent
            } else if sent < 0, errno == EINTR {
                continue
            } else {
                return false
            }
        }
        return true
    }

    /// Ends the connection with a FIN once what was written has gone out.
    func finish() {
        _ = close(descriptor)
    }

    /// Ends the connection with a RST: `SO_LINGER` of zero drops what is unsent and resets.
    func reset() {
        var option = linger(l_onoff: 1, l_linger: 0)
        setsockopt(descriptor, SOL_SOCKET, SO_LINGER, &option, socklen_t(MemoryLayout<linger>.size))
        _ = close(descriptor)
    }

    /// Wakes a thread blocked in `accept` or `recv` on this socket.
    func shutDown() {
        _ = shutdown(descriptor, Int32(SHUT_RDWR))
    }

    private static func make() throws -> ProxySocket {
        #if os(Linux)
        let streamType = Int32(SOCK_STREAM.rawValue)
        #else
        let streamType = SOCK_STREAM
        #endif
        let descriptor = socket(AF_INET, streamType, 0)
        guard descriptor >= 0 else { throw ProxyError(step: "socket", code: errno) }
        let socket = ProxySocket(descriptor: descriptor)
        socket.noSignalOnWrite()
        return socket
    }

    private static func loopback(port: Int) -> sockaddr_in {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = UInt16(port).bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        return address
    }

    private func disableNagle() {
        var yes: Int32 = 1
        setsockopt(descriptor, Int32(IPPROTO_TCP), TCP_NODELAY, &yes, socklen_t(MemoryLayout<Int32>.size))
    }

    /// A write to a peer that has gone must fail, not kill the test process with SIGPIPE.
    private func noSignalOnWrite() {
        #if canImport(Darwin)
        var yes: Int32 = 1
        setsockopt(descriptor, SOL_SOCKET, SO_NOSIGPIPE, &yes, socklen_t(MemoryLayout<Int32>.size))
        #endif
    }

    #if canImport(Darwin)
    private static let sendFlags: Int32 = 0
    #else
    private static let sendFlags = Int32(MSG_NOSIGNAL)
    #endif
}

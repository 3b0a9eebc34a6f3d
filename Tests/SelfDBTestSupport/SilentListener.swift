import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A TCP port on 127.0.0.1 that takes connections (the kernel completes the handshake for its
/// backlog) and never answers: a server that has gone quiet, for tests of what a client does
/// while it waits, such as being cancelled.
public final class SilentListener: Sendable {
    /// The port, chosen by the kernel.
    public let port: Int
    private let descriptor: Int32

    /// Binds and listens; throws when the system refuses.
    public init() throws {
        #if os(Linux)
        let streamType = Int32(SOCK_STREAM.rawValue)
        #else
        let streamType = SOCK_STREAM
        #endif
        let descriptor = socket(AF_INET, streamType, 0)
        guard descriptor >= 0 else { throw SilentListenerError(step: "socket", code: errno) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = 0
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, length) } }
        guard bound == 0, listen(descriptor, 16) == 0 else {
            let code = errno
            close(descriptor)
            throw SilentListenerError(step: "bind/listen", code: code)
        }
        var chosen = sockaddr_in()
        var chosenLength = length
        let named = withUnsafeMutablePointer(to: &chosen) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(descriptor, $0, &chosenLength) } }
        guard named == 0 else {
            let code = errno
            close(descriptor)
            throw SilentListenerError(step: "getsockname", code: code)
        }
        self.descriptor = descriptor
        self.port = Int(UInt16(bigEndian: chosen.sin_port))
    }

    /// `http://127.0.0.1:<port>`.
    public var baseURL: URL {
        URL(string: "http://127.0.0.1:\(port)") ?? URL(fileURLWithPath: "/")
    }

    deinit {
        close(descriptor)
    }
}

/// A socket call that failed while setting up a ``SilentListener``.
public struct SilentListenerError: Error, CustomStringConvertible {
    /// The call.
    public var step: String
    /// `errno`.
    public var code: Int32
    /// `SilentListener: bind/listen failed (errno 98)`.
    public var description: String { "SilentListener: \(step) failed (errno \(code))" }
}

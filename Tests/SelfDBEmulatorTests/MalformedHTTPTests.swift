import Foundation
import Testing

@testable import SelfDBEmulator

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Requests that are not valid HTTP, sent over raw sockets (URLSession would refuse to send
/// them). Each must get `400` and a closed connection, never a socket left open until the
/// client gives up.
@Suite("Malformed HTTP")
struct MalformedHTTPTests {
    static let requests: [(name: String, bytes: [UInt8])] = [
        ("NUL byte in a header value", Array("GET /users/me HTTP/1.1\r\nHost: x\r\nX-API-Key: a\u{0}b\r\n\r\n".utf8)),
        ("NUL byte in a header name", Array("GET /users/me HTTP/1.1\r\nHost: x\r\nX-A\u{0}: b\r\n\r\n".utf8)),
        ("bare LF line endings", Array("GET /users/me HTTP/1.1\nHost: x\nX-API-Key: k\n\n".utf8)),
        ("garbage request line", Array("\u{1}\u{2}\u{3} NOT HTTP\r\n\r\n".utf8)),
        ("space inside a header name", Array("GET / HTTP/1.1\r\nHost: x\r\nBad Name: v\r\n\r\n".utf8)),
        ("invalid Content-Length", Array("POST /users/token HTTP/1.1\r\nHost: x\r\nContent-Length: nope\r\n\r\n".utf8)),
    ]

    @Test("answered with 400 and closed", arguments: requests.indices)
    func answeredAndClosed(_ index: Int) async throws {
        let request = Self.requests[index]
        try await withEmulator { emulator, _ in
            let answer = try await Self.exchange(request.bytes, port: emulator.port)
            #expect(answer.text.hasPrefix("HTTP/1.1 400"), "\(request.name): \(answer.text.debugDescription)")
            #expect(answer.closedByServer, "\(request.name): the server left the connection open")
        }
    }

    /// Twenty at once, then a valid request on a new connection: nothing is held.
    @Test func manyAtOnceHoldNothing() async throws {
        try await withEmulator { emulator, client in
            let bad = Self.requests[0].bytes
            let port = emulator.port
            try await withThrowingTaskGroup(of: RawAnswer.self) { group in
                for _ in 0..<20 {
                    group.addTask { try await Self.exchange(bad, port: port) }
                }
                for try await answer in group {
                    #expect(answer.text.hasPrefix("HTTP/1.1 400"))
                    #expect(answer.closedByServer)
                }
            }
            #expect(try await client.send("GET", "/system/status").status == 200)
        }
    }

    /// A malformed request after a good one on the same keep-alive connection, sent once
    /// the good one is answered (as clients do; none pipelines).
    @Test func malformedAfterAGoodRequest() async throws {
        try await withEmulator { emulator, _ in
            let good = Array("GET /system/status HTTP/1.1\r\nHost: x\r\nX-API-Key: \(Fixture.apiKey)\r\n\r\n".utf8)
            let answer = try await Self.exchange(good, then: Self.requests[2].bytes, port: emulator.port)
            #expect(answer.text.hasPrefix("HTTP/1.1 200"), "\(answer.text.debugDescription)")
            #expect(answer.text.contains("HTTP/1.1 400"), "\(answer.text.debugDescription)")
            #expect(answer.closedByServer)
        }
    }

    struct RawAnswer: Sendable {
        var text: String
        /// The server closed the connection (end of stream) before the watchdog ran out.
        var closedByServer: Bool
    }

    /// Sends `bytes` on a fresh connection — after `first` has been sent and answered, if
    /// given — and reads until the server closes it or 10 s pass (a watchdog: a correct
    /// server closes within milliseconds). Blocking socket calls run on a thread of their
    /// own, never on the cooperative pool the emulator answers from.
    static func exchange(_ first: [UInt8]? = nil, then bytes: [UInt8], port: Int) async throws -> RawAnswer {
        try await withCheckedThrowingContinuation { continuation in
            Thread {
                continuation.resume(with: Result { try blockingExchange(first, then: bytes, port: port) })
            }.start()
        }
    }

    static func exchange(_ bytes: [UInt8], port: Int) async throws -> RawAnswer {
        try await exchange(nil, then: bytes, port: port)
    }

    struct SocketError: Error, CustomStringConvertible {
        var description: String
    }

    private static func blockingExchange(_ first: [UInt8]?, then bytes: [UInt8], port: Int) throws -> RawAnswer {
        #if canImport(Glibc)
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        #else
        let fd = socket(AF_INET, SOCK_STREAM, 0)
        #endif
        guard fd >= 0 else { throw SocketError(description: "socket() failed") }
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else { throw SocketError(description: "connect() failed") }
        // A watchdog a passing test never reaches (10 s ran out once in a full parallel run on
        // two cores, before the good request's answer).
        var timeout = timeval(tv_sec: 30, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        func sendAll(_ bytes: [UInt8]) throws {
            let sent = bytes.withUnsafeBytes { send(fd, $0.baseAddress, $0.count, 0) }
            guard sent == bytes.count else { throw SocketError(description: "send() sent \(sent) of \(bytes.count)") }
        }
        var received: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        if let first {
            try sendAll(first)
            // Until the whole first answer is in: its head and Content-Length bytes of body.
            while !isCompleteResponse(received) {
                let count = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
                guard count > 0 else {
                    throw SocketError(
                        description: "no complete answer to the first request (recv \(count), errno \(errno), \(received.count) bytes: \(String(decoding: received, as: UTF8.self).debugDescription))"
                    )
                }
                received.append(contentsOf: buffer[0..<count])
            }
        }
        try sendAll(bytes)
        while true {
            let count = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if count > 0 {
                received.append(contentsOf: buffer[0..<count])
            } else {
                // 0: the server closed; -1: the watchdog's timeout (or a reset).
                return RawAnswer(text: String(decoding: received, as: UTF8.self), closedByServer: count == 0)
            }
        }
    }

    private static func isCompleteResponse(_ bytes: [UInt8]) -> Bool {
        let text = String(decoding: bytes, as: UTF8.self)
        guard let end = text.range(of: "\r\n\r\n") else { return false }
        let head = text[..<end.lowerBound].lowercased()
        let length =
            head.split(separator: "\r\n").first { $0.hasPrefix("content-length:") }
            .flatMap { Int($0.dropFirst("content-length:".count).trimmingCharacters(in: .whitespaces)) } ?? 0
        return text.utf8.count - text[..<end.upperBound].utf8.count >= length
    }
}

import Foundation

/// One HTTP/1.1 message as it crossed the wire: its head parsed, its bytes kept exactly, so
/// the proxy forwards what it read without re-encoding it.
struct HTTPMessage: Sendable {
    /// The request or status line.
    var startLine: String
    /// Header fields in order.
    var headers: [(name: String, value: String)]
    /// Everything read, head and body (chunked framing included).
    var raw: [UInt8]
    /// Where the body starts in `raw`.
    var bodyOffset: Int

    func header(_ name: String) -> String? {
        headers.first { $0.name.lowercased() == name.lowercased() }?.value
    }

    /// The request's method and target (`POST`, `/tables/…?x=1`).
    var requestLine: (method: String, target: String)? {
        let parts = startLine.split(separator: " ", maxSplits: 2)
        guard parts.count >= 2 else { return nil }
        return (String(parts[0]), String(parts[1]))
    }

    /// The response's status code.
    var status: Int? {
        let parts = startLine.split(separator: " ", maxSplits: 2)
        return parts.count >= 2 ? Int(parts[1]) : nil
    }

    /// Whether the sender closes the connection after this message.
    var closesConnection: Bool {
        header("Connection")?.lowercased().contains("close") == true || startLine.hasSuffix("HTTP/1.0")
    }
}

/// Reads HTTP/1.1 messages from one connection, with a buffer of what arrived beyond the
/// current message. Bodies are framed by `Content-Length`, by chunks, or (a response without
/// either) by the end of the connection.
final class HTTPMessageReader {
    private let socket: ProxySocket
    private var buffer: [UInt8] = []
    private var ended = false

    init(_ socket: ProxySocket) {
        self.socket = socket
    }

    /// The next request; nil when the connection ends first.
    func request() -> HTTPMessage? {
        guard var message = head(), let (method, _) = message.requestLine else { return nil }
        let hasBody = message.header("Content-Length") != nil || message.header("Transfer-Encoding") != nil
        guard !hasBody || method == "HEAD" || body(of: &message, untilEnd: false) else { return nil }
        return message
    }

    /// The answer to a request made with `method`; nil when the connection ends first.
    func response(toMethod method: String) -> HTTPMessage? {
        while var message = head() {
            guard let status = message.status else { return nil }
            // An interim answer (100 Continue) precedes the real one.
            if (100..<200).contains(status) { continue }
            if method == "HEAD" || status == 204 || status == 304 { return message }
            return body(of: &message, untilEnd: true) ? message : nil
        }
        return nil
    }

    private func head() -> HTTPMessage? {
        var searchFrom = 0
        while true {
            if let end = Self.find([13, 10, 13, 10], in: buffer, from: searchFrom) {
                let head = Array(buffer[..<(end + 4)])
                buffer.removeFirst(end + 4)
                let lines = String(decoding: head, as: UTF8.self).components(separatedBy: "\r\n").filter { !$0.isEmpty }
                guard let startLine = lines.first else { return nil }
                let headers = lines.dropFirst().compactMap { line -> (name: String, value: String)? in
                    guard let colon = line.firstIndex(of: ":") else { return nil }
                    return (String(line[..<colon]), line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces))
                }
                return HTTPMessage(startLine: startLine, headers: headers, raw: head, bodyOffset: head.count)
            }
            searchFrom = max(0, buffer.count - 3)
            guard fill() else { return nil }
        }
    }

    /// Reads the body of `message` into its raw bytes; false when the connection ended first.
    private func body(of message: inout HTTPMessage, untilEnd: Bool) -> Bool {
        if message.header("Transfer-Encoding")?.lowercased().contains("chunked") == true {
            while true {
                guard let sizeLine = nextLine() else { return false }
                message.raw += sizeLine
                let size = Int(String(decoding: sizeLine, as: UTF8.self).split(separator: ";").first?.trimmingCharacters(in: .whitespacesAndNewlines) ?? "", radix: 16)
                guard let size else { return false }
                if size == 0 {
                    // Trailer fields, then the empty line.
                    while let trailer = nextLine() {
                        message.raw += trailer
                        if trailer == [13, 10] { return true }
                    }
                    return false
                }
                guard let chunk = bytes(size + 2) else { return false }
                message.raw += chunk
            }
        }
        if let length = message.header("Content-Length").flatMap({ Int($0) }) {
            guard let body = bytes(length) else { return false }
            message.raw += body
            return true
        }
        guard untilEnd else { return true }
        while fill() {}
        message.raw += buffer
        buffer.removeAll()
        return true
    }

    private func nextLine() -> [UInt8]? {
        var searchFrom = 0
        while true {
            if let end = Self.find([13, 10], in: buffer, from: searchFrom) {
                let line = Array(buffer[..<(end + 2)])
                buffer.removeFirst(end + 2)
                return line
            }
            searchFrom = max(0, buffer.count - 1)
            guard fill() else { return nil }
        }
    }

    private func bytes(_ count: Int) -> [UInt8]? {
        while buffer.count < count {
            guard fill() else { return nil }
        }
        let taken = Array(buffer[..<count])
        buffer.removeFirst(count)
        return taken
    }

    private func fill() -> Bool {
        guard !ended else { return false }
        let received = socket.read(upTo: 64 * 1024)
        if received.isEmpty {
            ended = true
            return false
        }
        buffer += received
        return true
    }

    private static func find(_ pattern: [UInt8], in bytes: [UInt8], from start: Int) -> Int? {
        guard bytes.count >= pattern.count, start <= bytes.count - pattern.count else { return nil }
        var index = start
        while index <= bytes.count - pattern.count {
            if bytes[index] == pattern[0], Array(bytes[index..<(index + pattern.count)]) == pattern { return index }
            index += 1
        }
        return nil
    }
}

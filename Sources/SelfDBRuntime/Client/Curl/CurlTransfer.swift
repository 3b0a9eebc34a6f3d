#if canImport(CCurl)
import CCurl
import Foundation
import FoundationNetworking

/// One request through a ``CurlHandle``: sets the handle up from the `URLRequest`, runs the
/// transfer to its end on the calling thread, and reads the response.
struct CurlTransfer {
    /// Where the request's body comes from.
    enum Body {
        /// The request's `httpBody` (or none).
        case request
        /// An open file of `size` bytes, read as the body goes out.
        case file(descriptor: Int32, size: Int64, path: String)
    }

    /// Where the answer's body goes.
    enum Sink {
        /// Into memory, returned with the response.
        case memory
        /// Into an open file, written as it arrives.
        case file(descriptor: Int32, path: String)
    }

    let request: URLRequest
    let handle: CurlHandle
    let cancellation: CurlCancellation
    var body: Body = .request
    var sink: Sink = .memory
    var progress: TransferProgressHandler?

    /// What the callbacks collect while the transfer runs (on this thread only).
    final class Received {
        var body = Data()
        var headerLines: [String] = []
        /// The file the answer's body is written to, if any.
        var sink: (descriptor: Int32, path: String)?
        /// The file the request's body is read from, if any.
        var source: (descriptor: Int32, path: String)?
        /// Why a file could not be read or written, which stopped the transfer.
        var fileFailure: TransferFileError?
        /// Progress of the body that goes out (an upload) or comes in (anything else).
        var throttle: ProgressThrottle?
        var uploadSize: Int64?
        /// Bytes of the answer's body received.
        var bytesReceived: Int64 = 0
        /// Bytes of the request's body read from the source file.
        var bytesSent: Int64 = 0
        /// The current answer's `Content-Length`, once its header arrived.
        var expectedLength: Int64?
        let cancellation: CurlCancellation
        /// Whether libcurl may send the request again by itself (see ``refusesResend()``).
        let mayResend: Bool
        /// How many times the request went out.
        var sends = 0
        /// Whether an answer's status line arrived since the request last went out.
        var answeredSinceSend = false
        /// Whether a resend was refused: the request went out once and may have landed.
        var refusedResend = false

        init(cancellation: CurlCancellation, mayResend: Bool) {
            self.cancellation = cancellation
            self.mayResend = mayResend
        }

        /// Writes a chunk of the answer into the sink file; false when the file refused it.
        func write(_ bytes: UnsafeRawPointer, count: Int) -> Bool {
            bytesReceived += Int64(count)
            if uploadSize == nil { throttle?.update(done: bytesReceived, expected: expectedLength) }
            guard let sink else {
                body.append(bytes.assumingMemoryBound(to: UInt8.self), count: count)
                return true
            }
            do {
                try writeFully(bytes, count: count, to: sink.descriptor, path: sink.path)
                return true
            } catch {
                fileFailure = error
                return false
            }
        }

        /// Reads the next chunk of the request's body from the source file into `buffer`: the
        /// bytes read (0 at the end), or nil when the file could not be read.
        func read(into buffer: UnsafeMutableRawPointer, capacity: Int) -> Int? {
            guard let source else { return 0 }
            while true {
                let result = Foundation.read(source.descriptor, buffer, capacity)
                if result >= 0 {
                    bytesSent += Int64(result)
                    throttle?.update(done: bytesSent, expected: uploadSize)
                    return result
                }
                if errno == EINTR { continue }
                fileFailure = TransferFileError(path: source.path, errno: errno)
                return nil
            }
        }

        /// Called before the request goes out on a connection. libcurl sends a request again on
        /// a new connection when a reused one died before any byte of the answer came back,
        /// whatever its method (`Curl_retry_request`): for a POST whose answer was lost after
        /// the server committed, that applies it twice, and the caller never hears of it. A
        /// second send without an answer in between (a redirect's is one) is refused unless the
        /// method is safe; the transfer then fails as a lost connection whose outcome is unknown,
        /// which is what URLSession reports for a non-idempotent request (QA1941), and the
        /// client decides what to do.
        func refusesResend() -> Bool {
            if sends > 0, !answeredSinceSend, !mayResend {
                refusedResend = true
                return true
            }
            sends += 1
            answeredSinceSend = false
            return false
        }
    }

    func run() throws -> (Data, HTTPURLResponse) {
        guard let url = request.url, let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https" else {
            throw URLError(.unsupportedURL, userInfo: [NSLocalizedDescriptionKey: "only http and https URLs are supported"])
        }
        if request.httpBodyStream != nil {
            throw URLError(.unsupportedURL, userInfo: [NSLocalizedDescriptionKey: "a request body stream is not supported; set httpBody"])
        }
        // A handle is fresh or was reset when its last transfer ended (`CurlTransport.perform`).
        let raw = handle.raw
        let received = Received(cancellation: cancellation, mayResend: Self.isSafe(request.httpMethod))
        received.throttle = progress.map(ProgressThrottle.init)
        if case .file(let descriptor, let size, let path) = body {
            received.source = (descriptor, path)
            received.uploadSize = size
        }
        if case .file(let descriptor, let path) = sink { received.sink = (descriptor, path) }
        let context = Unmanaged.passRetained(received)
        defer { context.release() }
        var headers: UnsafeMutablePointer<curl_slist>?
        defer { curl_slist_free_all(headers) }
        for (name, value) in request.allHTTPHeaderFields ?? [:] {
            headers = curl_slist_append(headers, "\(name): \(value)")
        }
        // No `Expect: 100-continue` wait before a body (URLSession sends none either).
        headers = curl_slist_append(headers, "Expect:")
        var errorText = [CChar](repeating: 0, count: Int(CURL_ERROR_SIZE) + 1)
        let code: CURLcode = try errorText.withUnsafeMutableBufferPointer { errorBuffer in
            // libcurl copies the strings it is given (URL, method, encodings) but not the body
            // or the error buffer: both outlive `curl_easy_perform` here.
            try set(CURLOPT_URL, text: url.absoluteString)
            try set(CURLOPT_HTTPHEADER, pointer: headers)
            try set(CURLOPT_ERRORBUFFER, pointer: errorBuffer.baseAddress)
            try set(CURLOPT_NOSIGNAL, 1)
            try set(CURLOPT_FOLLOWLOCATION, 1)
            try set(CURLOPT_MAXREDIRS, 16)
            // Every encoding libcurl can decode, decoded as URLSession does; a body written to a
            // file comes as the server holds it, so its size is its Content-Length.
            if case .memory = sink { try set(CURLOPT_ACCEPT_ENCODING, text: "") }
            // A file's body in chunks of 256 KiB instead of 16: a sixteenth of the callbacks
            // and writes, which is what keeps a download at the command line's pace.
            if case .file = sink { try? set(CURLOPT_BUFFERSIZE, 256 << 10) }
            if case .file = body { try? set(CURLOPT_UPLOAD_BUFFERSIZE, 256 << 10) }
            try setTimeout(request.timeoutInterval)
            try setCallbacks(context: context.toOpaque(), received: received)
            return try withMethodAndBody { curl_easy_perform(raw) }
        }
        guard code == CURLE_OK else {
            if let failure = received.fileFailure, !cancellation.isCancelled { throw failure }
            let delivery = received.refusedResend ? .unknown : CurlErrors.delivery(of: code, requestBytesWritten: requestBytesWritten())
            if cancellation.isCancelled { throw URLError(.cancelled).recording(delivery) }
            if received.refusedResend {
                throw URLError(
                    .networkConnectionLost,
                    userInfo: [
                        NSLocalizedDescriptionKey: "the connection was lost after the request was sent, before any answer came back",
                        NSURLErrorFailingURLErrorKey: url,
                    ]
                ).recording(.unknown)
            }
            let detail = String(decoding: errorText.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            throw CurlErrors.urlError(code, detail: detail, url: url).recording(delivery)
        }
        // The end, reported once whatever libcurl's last progress call said.
        if let size = received.uploadSize {
            received.throttle?.update(done: size, expected: size)
        } else {
            received.throttle?.update(done: received.bytesReceived, expected: received.bytesReceived)
        }
        return (received.body, try response(to: url, headerLines: received.headerLines))
    }

    /// What a read callback returns to stop the transfer (`CURL_READFUNC_ABORT`).
    private static let readAbort = 0x1000_0000

    /// Whether libcurl may send a request of `method` twice by itself: only a safe method, whose
    /// second send changes nothing on the server (RFC 9110 §9.2.1).
    static func isSafe(_ method: String?) -> Bool {
        ["GET", "HEAD", "OPTIONS"].contains((method ?? "GET").uppercased())
    }

    /// The bytes of the request written to the connection so far: none means the server cannot
    /// have it.
    private func requestBytesWritten() -> Int {
        var size = 0
        _ = ccurl_getinfo_long(handle.raw, CURLINFO_REQUEST_SIZE, &size)
        return size
    }

    /// Sets the method and the body, then runs `perform` while the body's bytes are valid.
    private func withMethodAndBody(_ perform: () -> CURLcode) throws -> CURLcode {
        let method = (request.httpMethod ?? "GET").uppercased()
        if case .file(_, let size, _) = body {
            // The read callback supplies the body: POST's framing with the request's method.
            try set(CURLOPT_POST, 1)
            if method != "POST" { try set(CURLOPT_CUSTOMREQUEST, text: method) }
            try set(CURLOPT_POSTFIELDSIZE_LARGE, offset: curl_off_t(size))
            return perform()
        }
        guard let body = request.httpBody else {
            switch method {
            case "GET": try set(CURLOPT_HTTPGET, 1)
            case "HEAD": try set(CURLOPT_NOBODY, 1)
            default: try set(CURLOPT_CUSTOMREQUEST, text: method)
            }
            return perform()
        }
        if method == "HEAD" { try set(CURLOPT_NOBODY, 1) }
        if method != "POST" { try set(CURLOPT_CUSTOMREQUEST, text: method) }
        try set(CURLOPT_POSTFIELDSIZE_LARGE, offset: curl_off_t(body.count))
        guard !body.isEmpty else {
            // `CURLOPT_POSTFIELDS` left null would make curl read the body from its read
            // callback (standard input by default): an empty body is an empty string.
            try set(CURLOPT_COPYPOSTFIELDS, text: "")
            return perform()
        }
        return try body.withUnsafeBytes { (bytes: UnsafeRawBufferPointer) throws -> CURLcode in
            try set(CURLOPT_POSTFIELDS, pointer: bytes.baseAddress)
            return perform()
        }
    }

    /// `timeoutInterval` the way URLSession reads it: the longest wait to connect, and the
    /// longest time without a byte received (curl measures speed over whole seconds).
    private func setTimeout(_ interval: TimeInterval) throws {
        guard interval > 0, interval.isFinite else { return }
        try set(CURLOPT_CONNECTTIMEOUT_MS, Int((interval * 1000).rounded(.up)))
        try set(CURLOPT_LOW_SPEED_LIMIT, 1)
        try set(CURLOPT_LOW_SPEED_TIME, max(1, Int(interval.rounded(.up))))
    }

    private func setCallbacks(context: UnsafeMutableRawPointer, received: Received) throws {
        let raw = handle.raw
        try check(
            ccurl_setopt_data_callback(raw, CURLOPT_WRITEFUNCTION) { data, size, count, context in
                guard let context else { return 0 }
                let received = Unmanaged<Received>.fromOpaque(context).takeUnretainedValue()
                let length = size * count
                if let data, length > 0, !received.write(UnsafeRawPointer(data), count: length) { return 0 }
                return length
            }
        )
        try set(CURLOPT_WRITEDATA, pointer: context)
        if received.source != nil {
            try check(
                ccurl_setopt_data_callback(raw, CURLOPT_READFUNCTION) { buffer, size, count, context in
                    guard let context, let buffer else { return Self.readAbort }
                    let received = Unmanaged<Received>.fromOpaque(context).takeUnretainedValue()
                    return received.read(into: UnsafeMutableRawPointer(buffer), capacity: size * count).map { $0 } ?? Self.readAbort
                }
            )
            try set(CURLOPT_READDATA, pointer: context)
        }
        try check(
            ccurl_setopt_data_callback(raw, CURLOPT_HEADERFUNCTION) { data, size, count, context in
                guard let context else { return 0 }
                let received = Unmanaged<Received>.fromOpaque(context).takeUnretainedValue()
                let length = size * count
                if let data, length > 0 {
                    let line = String(decoding: UnsafeRawBufferPointer(start: data, count: length), as: UTF8.self)
                    if line.hasPrefix("HTTP/") {
                        received.answeredSinceSend = true
                        received.expectedLength = nil
                    } else if received.throttle != nil, received.uploadSize == nil, line.lowercased().hasPrefix("content-length:") {
                        // Only a download that reports progress needs the size it expects.
                        received.expectedLength = Int64(line.dropFirst("content-length:".count).trimmingCharacters(in: .whitespacesAndNewlines))
                    }
                    received.headerLines.append(line)
                }
                return length
            }
        )
        try set(CURLOPT_HEADERDATA, pointer: context)
        let prereq = ccurl_setopt_prereq_callback(
            raw,
            { context, _, _, _, _ in
                guard let context else { return CURL_PREREQFUNC_OK }
                return Unmanaged<Received>.fromOpaque(context).takeUnretainedValue().refusesResend() ? CURL_PREREQFUNC_ABORT : CURL_PREREQFUNC_OK
            },
            context
        )
        if prereq != CURLE_OK, !received.mayResend {
            // libcurl before 7.80 has no pre-request callback: a connection of its own, which
            // libcurl never retries (it resends only on a reused one), at one round trip more.
            try set(CURLOPT_FRESH_CONNECT, 1)
        }
        try check(
            ccurl_setopt_progress_callback(raw) { context, _, _, _, _ in
                guard let context else { return 0 }
                return Unmanaged<Received>.fromOpaque(context).takeUnretainedValue().cancellation.isCancelled ? 1 : 0
            }
        )
        try set(CURLOPT_XFERINFODATA, pointer: context)
        try set(CURLOPT_NOPROGRESS, 0)
    }

    /// The response of the last exchange (a redirect's or an interim `100`'s headers come
    /// first and are dropped), with repeated fields joined by commas as URLSession joins them.
    private func response(to url: URL, headerLines: [String]) throws -> HTTPURLResponse {
        var status = 0
        _ = ccurl_getinfo_long(handle.raw, CURLINFO_RESPONSE_CODE, &status)
        var effective: UnsafeMutablePointer<CChar>?
        let finalURL =
            ccurl_getinfo_string(handle.raw, CURLINFO_EFFECTIVE_URL, &effective) == CURLE_OK
            ? effective.flatMap { URL(string: String(cString: $0)) } ?? url : url
        var fields: [String: String] = [:]
        var version = "HTTP/1.1"
        for line in headerLines {
            let trimmed = line.trimmingCharacters(in: .whitespacesAndNewlines)
            if trimmed.hasPrefix("HTTP/") {
                fields = [:]
                version = String(trimmed.prefix { $0 != " " })
                continue
            }
            guard let colon = trimmed.firstIndex(of: ":") else { continue }
            let name = String(trimmed[..<colon])
            let value = trimmed[trimmed.index(after: colon)...].trimmingCharacters(in: .whitespaces)
            if let existing = fields.first(where: { $0.key.caseInsensitiveCompare(name) == .orderedSame }) {
                fields[existing.key] = existing.value + ", " + value
            } else {
                fields[name] = value
            }
        }
        guard status > 0, let response = HTTPURLResponse(url: finalURL, statusCode: status, httpVersion: version, headerFields: fields) else {
            throw URLError(.badServerResponse, userInfo: [NSURLErrorFailingURLErrorKey: url])
        }
        return response
    }

    // MARK: - Options

    private func set(_ option: CURLoption, _ value: Int) throws {
        try check(ccurl_setopt_long(handle.raw, option, value))
    }

    private func set(_ option: CURLoption, offset: curl_off_t) throws {
        try check(ccurl_setopt_offset(handle.raw, option, offset))
    }

    private func set(_ option: CURLoption, pointer: UnsafeRawPointer?) throws {
        try check(ccurl_setopt_pointer(handle.raw, option, pointer))
    }

    private func set(_ option: CURLoption, text: String) throws {
        try text.withCString { try check(ccurl_setopt_pointer(handle.raw, option, $0)) }
    }

    private func check(_ code: CURLcode) throws {
        guard code == CURLE_OK else {
            throw CurlErrors.urlError(code, detail: String(cString: curl_easy_strerror(code)), url: request.url)
        }
    }
}
#endif

import Foundation
import SelfDBRuntime

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A transport that records requests and answers from a queue: the seam the client is
/// designed around, used here to check exactly what generated endpoint code sends.
final class RecordingTransport: HTTPTransport, @unchecked Sendable {
    struct Reply {
        var status: Int
        var body: String
        var headers: [String: String] = [:]
    }

    private let lock = NSLock()
    private var replies: [Reply]
    private(set) var requests: [URLRequest] = []
    /// The files bodies were read from, one per upload.
    private(set) var uploadedFiles: [URL] = []

    init(_ replies: [Reply]) {
        self.replies = replies
    }

    var lastRequest: URLRequest? { lock.withLock { requests.last } }
    var requestCount: Int { lock.withLock { requests.count } }

    /// Records the file, then sends it as the default does: read whole.
    func upload(_ request: URLRequest, fromFile file: URL, progress: TransferProgressHandler?) async throws -> (Data, HTTPURLResponse) {
        lock.withLock { uploadedFiles.append(file) }
        var request = request
        request.httpBody = try Data(contentsOf: file)
        let answer = try await send(request)
        progress?(TransferProgress(bytesDone: Int64(request.httpBody?.count ?? 0), bytesExpected: Int64(request.httpBody?.count ?? 0)))
        return answer
    }

    func send(_ request: URLRequest) async throws -> (Data, HTTPURLResponse) {
        let reply: Reply = try lock.withLock {
            requests.append(request)
            guard !replies.isEmpty else { throw URLError(.cannotConnectToHost) }
            return replies.removeFirst()
        }
        guard let url = request.url, let response = HTTPURLResponse(url: url, statusCode: reply.status, httpVersion: "HTTP/1.1", headerFields: reply.headers) else {
            throw URLError(.badServerResponse)
        }
        return (Data(reply.body.utf8), response)
    }
}

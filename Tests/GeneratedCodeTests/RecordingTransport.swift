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

    init(_ replies: [Reply]) {
        self.replies = replies
    }

    var lastRequest: URLRequest? { lock.withLock { requests.last } }
    var requestCount: Int { lock.withLock { requests.count } }

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

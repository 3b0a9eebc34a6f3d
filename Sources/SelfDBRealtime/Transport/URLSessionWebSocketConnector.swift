#if canImport(Darwin)
import Foundation

/// The connector on Apple platforms: `URLSessionWebSocketTask`, so apps do not link NIO for
/// realtime.
public struct PlatformWebSocketConnector: WebSocketConnector {
    /// Largest message accepted from the server.
    public var maximumMessageSize: Int

    /// A connector accepting messages up to `maximumMessageSize` bytes (16 MiB by default).
    public init(maximumMessageSize: Int = 1 << 24) {
        self.maximumMessageSize = maximumMessageSize
    }

    public func connect(to url: URL) async throws -> any WebSocketConnection {
        let connection = URLSessionWebSocketConnection(url: url, maximumMessageSize: maximumMessageSize)
        try await connection.open()
        return connection
    }
}

/// Wraps a `URLSessionWebSocketTask`. The task reports the upgrade through its delegate;
/// `open` waits for it so a refused upgrade is an error of `connect`, not of the first read.
final class URLSessionWebSocketConnection: NSObject, WebSocketConnection, URLSessionWebSocketDelegate, @unchecked Sendable {
    let messages: AsyncThrowingStream<WebSocketMessage, any Error>
    private let inbound: AsyncThrowingStream<WebSocketMessage, any Error>.Continuation
    private let lock = NSLock()
    private var openContinuation: CheckedContinuation<Void, any Error>?
    private var session: URLSession?
    private var task: URLSessionWebSocketTask?
    private let url: URL
    private let maximumMessageSize: Int

    init(url: URL, maximumMessageSize: Int) {
        self.url = url
        self.maximumMessageSize = maximumMessageSize
        (messages, inbound) = AsyncThrowingStream.makeStream()
        super.init()
    }

    func open() async throws {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
            let session = URLSession(configuration: .ephemeral, delegate: self, delegateQueue: nil)
            let task = session.webSocketTask(with: url)
            task.maximumMessageSize = maximumMessageSize
            lock.withLock {
                openContinuation = continuation
                self.session = session
                self.task = task
            }
            task.resume()
        }
    }

    func send(_ text: String) async throws {
        guard let task = lock.withLock({ task }) else { throw RealtimeError.disconnected }
        try await task.send(.string(text))
    }

    func close() async {
        let (task, session) = lock.withLock { (self.task, self.session) }
        task?.cancel(with: .normalClosure, reason: nil)
        session?.finishTasksAndInvalidate()
        inbound.finish()
    }

    private func resumeOpen(_ error: (any Error)?) {
        guard
            let continuation = lock.withLock({ () -> CheckedContinuation<Void, any Error>? in
                defer { openContinuation = nil }
                return openContinuation
            })
        else { return }
        if let error { continuation.resume(throwing: error) } else { continuation.resume() }
    }

    private func receiveNext() {
        guard let task = lock.withLock({ task }) else { return }
        task.receive { [weak self] result in
            guard let self else { return }
            switch result {
            case .success(.string(let text)):
                inbound.yield(.text(text))
                receiveNext()
            case .success(.data(let data)):
                inbound.yield(.binary(data))
                receiveNext()
            case .success:
                receiveNext()
            case .failure(let error):
                inbound.finish(throwing: error)
            }
        }
    }

    func urlSession(_ session: URLSession, webSocketTask: URLSessionWebSocketTask, didOpenWithProtocol protocol: String?) {
        resumeOpen(nil)
        receiveNext()
    }

    func urlSession(_ session: URLSession, webSocketTask: URLSessionWebSocketTask, didCloseWith closeCode: URLSessionWebSocketTask.CloseCode, reason: Data?) {
        inbound.finish()
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        resumeOpen(error ?? RealtimeError.connectionFailed("the socket closed before it opened"))
        if let error { inbound.finish(throwing: error) } else { inbound.finish() }
    }
}
#endif

#if canImport(Darwin)
import Foundation

/// The connector on Apple platforms: `URLSessionWebSocketTask`, so apps do not link NIO for
/// realtime.
///
/// On watchOS it throws ``RealtimeError/unsupportedPlatform(_:)`` at once: watchOS lets only
/// apps that stream audio open low-level network connections, `URLSessionWebSocketTask`
/// included (Apple's TN3135), so for an ordinary app every attempt would fail after its
/// timeout and the client would back off and try again for ever.
public struct PlatformWebSocketConnector: WebSocketConnector {
    /// Largest message accepted from the server.
    public var maximumMessageSize: Int

    /// A connector accepting messages up to `maximumMessageSize` bytes (16 MiB by default).
    public init(maximumMessageSize: Int = 1 << 24) {
        self.maximumMessageSize = maximumMessageSize
    }

    public func connect(to url: URL) async throws -> any WebSocketConnection {
        #if os(watchOS)
        throw RealtimeError.unsupportedPlatform(
            "watchOS does not let an app open a WebSocket unless it streams audio (TN3135); use HTTP polling on the watch, or realtime on the paired iPhone"
        )
        #else
        let connection = URLSessionWebSocketConnection(url: url, maximumMessageSize: maximumMessageSize)
        try await connection.open()
        return connection
        #endif
    }
}

/// Wraps a `URLSessionWebSocketTask`. The task reports the upgrade through its delegate;
/// `open` waits for it so a refused upgrade is an error of `connect`, not of the first read.
///
/// Each connection has a session of its own, which keeps its delegate (this object) until it is
/// invalidated: the session is invalidated when its one task ends, whichever way, so a
/// reconnect loop while offline does not leave a session behind per attempt.
final class URLSessionWebSocketConnection: NSObject, WebSocketConnection, URLSessionWebSocketDelegate, @unchecked Sendable {
    // @unchecked: every mutable property is read and written under `lock`; URLSession calls
    // the delegate methods on its own serial queue.
    let messages: AsyncThrowingStream<WebSocketMessage, any Error>
    private let inbound: AsyncThrowingStream<WebSocketMessage, any Error>.Continuation
    private let lock = NSLock()
    private var openContinuation: CheckedContinuation<Void, any Error>?
    /// Set when the opening task was cancelled, possibly before `openContinuation` was stored.
    private var openCancelled = false
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

    /// Opens the socket. Cancelling the calling task (a `disconnect()` during the connect)
    /// ends the attempt at once instead of waiting out the request timeout.
    func open() async throws {
        let session = URLSession(configuration: .ephemeral, delegate: self, delegateQueue: nil)
        let task = session.webSocketTask(with: url)
        task.maximumMessageSize = maximumMessageSize
        lock.withLock {
            self.session = session
            self.task = task
        }
        do {
            try await withTaskCancellationHandler {
                try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                    let cancelled = lock.withLock { () -> Bool in
                        if openCancelled { return true }
                        openContinuation = continuation
                        return false
                    }
                    if cancelled {
                        continuation.resume(throwing: CancellationError())
                    } else {
                        task.resume()
                    }
                }
            } onCancel: {
                lock.withLock { openCancelled = true }
                resumeOpen(CancellationError())
            }
        } catch {
            // The socket never opened: end the task and release the session now.
            task.cancel()
            session.invalidateAndCancel()
            inbound.finish(throwing: error)
            throw error
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
                receiveFailed(error, task: task)
            }
        }
    }

    /// A server's close frame fails the pending `receive` (with POSIX error 57, "socket is not
    /// connected") before the delegate hears of the close, so a failed read is not yet a lost
    /// connection: with a close code set, the server closed cleanly; with ENOTCONN and no code
    /// yet, the delegate's `didCloseWith` (clean) or `didCompleteWithError` (lost) decides.
    private func receiveFailed(_ error: any Error, task: URLSessionWebSocketTask) {
        if task.closeCode != .invalid {
            inbound.finish()
            return
        }
        let nsError = error as NSError
        if nsError.domain == NSPOSIXErrorDomain, nsError.code == Int(POSIXErrorCode.ENOTCONN.rawValue) {
            return
        }
        inbound.finish(throwing: error)
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
        if let error, ((task as? URLSessionWebSocketTask)?.closeCode ?? .invalid) == .invalid {
            inbound.finish(throwing: error)
        } else {
            inbound.finish()
        }
        // The session's only task has ended: let it go, and its strong hold on this delegate.
        session.finishTasksAndInvalidate()
    }
}
#endif

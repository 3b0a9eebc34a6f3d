#if !canImport(Darwin)
import Foundation
import Logging
import NIOCore
import SelfDBRuntime
import WSClient

/// The connector on Linux, where URLSession (libcurl) has no WebSocket support: the NIO-based
/// client of hummingbird-project/swift-websocket. Apple platforms use URLSession instead and
/// do not link NIO for realtime.
public struct PlatformWebSocketConnector: WebSocketConnector {
    /// Largest message accepted from the server.
    public var maximumMessageSize: Int

    /// A connector accepting messages up to `maximumMessageSize` bytes (16 MiB by default).
    public init(maximumMessageSize: Int = 1 << 24) {
        self.maximumMessageSize = maximumMessageSize
    }

    public func connect(to url: URL) async throws -> any WebSocketConnection {
        let connection = NIOWebSocketConnection()
        try await connection.open(url, maximumMessageSize: maximumMessageSize)
        return connection
    }
}

/// Bridges swift-websocket's scoped API (`connect { inbound, outbound, context in ... }`, the
/// socket lives while the closure runs) to an object the client can hold: the closure runs in a
/// task of its own, forwarding inbound messages to a stream and writing what `send` queues.
final class NIOWebSocketConnection: WebSocketConnection {
    private enum Outgoing: Sendable {
        case text(String)
        case close
    }

    let messages: AsyncThrowingStream<WebSocketMessage, any Error>
    private let inbound: AsyncThrowingStream<WebSocketMessage, any Error>.Continuation
    private let outgoing: AsyncStream<Outgoing>
    private let outgoingContinuation: AsyncStream<Outgoing>.Continuation
    /// Resumed once: when the upgrade succeeded, or with the error that prevented it.
    private let opened = Locked<CheckedContinuation<Void, any Error>?>(nil)
    private let task = Locked<Task<Void, Never>?>(nil)

    init() {
        (messages, inbound) = AsyncThrowingStream.makeStream()
        (outgoing, outgoingContinuation) = AsyncStream.makeStream()
    }

    func open(_ url: URL, maximumMessageSize: Int) async throws {
        let logger = Self.quietLogger
        let configuration = WebSocketClientConfiguration(maxFrameSize: maximumMessageSize)
        // Cancelling the caller (a `disconnect()` during the connect) ends the attempt at once;
        // a socket whose upgrade completes after that is closed straight away.
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                opened.withLock { $0 = continuation }
                let work = Task { [self] in
                    do {
                        try await WebSocketClient.connect(url: url.absoluteString, configuration: configuration, logger: logger) { inbound, outbound, _ in
                            guard self.resumeOpened(with: nil) else { return }
                            try await self.pump(inbound: inbound, outbound: outbound, maximumMessageSize: maximumMessageSize)
                        }
                        self.resumeOpened(with: RealtimeError.connectionFailed("the server closed the socket during the upgrade"))
                        self.inbound.finish()
                    } catch {
                        self.resumeOpened(with: error)
                        self.inbound.finish(throwing: error)
                    }
                    self.outgoingContinuation.finish()
                }
                task.withLock { $0 = work }
                if Task.isCancelled { cancelOpening() }
            }
        } onCancel: {
            cancelOpening()
        }
    }

    private func cancelOpening() {
        task.current?.cancel()
        resumeOpened(with: CancellationError())
    }

    func send(_ text: String) async throws {
        if case .terminated = outgoingContinuation.yield(.text(text)) {
            throw RealtimeError.disconnected
        }
    }

    func close() async {
        outgoingContinuation.yield(.close)
        outgoingContinuation.finish()
        await task.current?.value
    }

    /// NIO's connection chatter is not the app's business; failures surface as errors.
    private static let quietLogger: Logger = {
        var logger = Logger(label: "selfdb.realtime.websocket")
        logger.logLevel = .critical
        return logger
    }()

    /// Resumes `open` once; false when it was resumed already (by a cancellation, say).
    @discardableResult
    private func resumeOpened(with error: (any Error)?) -> Bool {
        guard
            let continuation = opened.withLock({ value in
                defer { value = nil }
                return value
            })
        else { return false }
        if let error {
            continuation.resume(throwing: error)
        } else {
            continuation.resume()
        }
        return true
    }

    /// Reads and writes until either side ends; returning closes the socket.
    private func pump(inbound: WebSocketInboundStream, outbound: WebSocketOutboundWriter, maximumMessageSize: Int) async throws {
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask {
                for try await message in inbound.messages(maxSize: maximumMessageSize) {
                    switch message {
                    case .text(let text): self.inbound.yield(.text(text))
                    case .binary(let buffer): self.inbound.yield(.binary(Data(buffer.readableBytesView)))
                    }
                }
            }
            group.addTask {
                for await item in self.outgoing {
                    switch item {
                    case .text(let text): try await outbound.write(.text(text))
                    case .close: return
                    }
                }
            }
            // Whichever side ends first ends the connection.
            try await group.next()
            group.cancelAll()
        }
    }
}
#endif

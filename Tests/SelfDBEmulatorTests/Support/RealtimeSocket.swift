import Foundation
import HummingbirdWSClient
import Logging
import NIOWebSocket

@testable import EmulatorSupport
@testable import SelfDBEmulator

/// A WebSocket connection driven by a test: send text frames, await received ones.
final class RealtimeSocket: Sendable {
    private actor Inbox {
        var messages: [String] = []
        var closed = false
        var opened = false
        var failure: String?

        func append(_ text: String) { messages.append(text) }
        func close() { closed = true }
        func open() { opened = true }
        func fail(_ reason: String) {
            failure = reason
            closed = true
        }

        func take() -> (String?, Bool) {
            if !messages.isEmpty { return (messages.removeFirst(), false) }
            return (nil, closed)
        }
    }

    /// How long a test waits for a frame, an upgrade or a close that should come. Generous:
    /// a passing test never waits it out, and on a loaded 2-core CI machine running the whole
    /// suite a heartbeat reply has taken more than 5 s.
    static let patience: Duration = .seconds(20)

    private let inbox = Inbox()
    private let outgoing: AsyncStream<String>.Continuation
    private let task: Task<Void, Never>

    /// Connects and waits (up to ``patience``) for the upgrade; throws if it did not happen.
    init(url: String) async throws {
        let (stream, continuation) = AsyncStream<String>.makeStream()
        outgoing = continuation
        let inbox = self.inbox
        var logger = Logger(label: "test-ws")
        logger.logLevel = .critical
        task = Task {
            do {
                try await WebSocketClient.connect(url: url, logger: logger) { inbound, outbound, _ in
                    await inbox.open()
                    await withTaskGroup(of: Void.self) { group in
                        group.addTask {
                            for await text in stream {
                                try? await outbound.write(.text(text))
                            }
                            try? await outbound.close(.normalClosure, reason: nil)
                        }
                        do {
                            for try await message in inbound.messages(maxSize: 1 << 20) {
                                if case .text(let text) = message { await inbox.append(text) }
                            }
                        } catch {}
                        await inbox.close()
                        continuation.finish()
                    }
                }
            } catch {
                await inbox.fail(String(describing: error))
            }
            await inbox.close()
        }
        let deadline = ContinuousClock.now + Self.patience
        while ContinuousClock.now < deadline {
            if await inbox.opened { return }
            if await inbox.closed { break }
            try await Task.sleep(for: .milliseconds(10))
        }
        continuation.finish()
        throw SocketError.notOpened(await inbox.failure ?? "timed out")
    }

    enum SocketError: Error { case notOpened(String) }

    func send(_ text: String) {
        outgoing.yield(text)
    }

    func send(_ value: JSONValue) {
        outgoing.yield(JSONWriter.string(value))
    }

    /// The next frame received within `timeout`, or nil if none came (or the socket closed).
    func next(timeout: Duration = patience) async -> String? {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            let (message, closed) = await inbox.take()
            if let message { return message }
            if closed { return nil }
            try? await Task.sleep(for: .milliseconds(5))
        }
        return nil
    }

    /// The next frame parsed as JSON.
    func nextJSON(timeout: Duration = patience) async -> JSONValue? {
        guard let text = await next(timeout: timeout) else { return nil }
        return try? JSONParser.parse(text)
    }

    /// Frames until one satisfies `predicate`, within `timeout`.
    func next(where predicate: (JSONValue) -> Bool, timeout: Duration = patience) async -> JSONValue? {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            guard let value = await nextJSON(timeout: deadline - ContinuousClock.now) else { return nil }
            if predicate(value) { return value }
        }
        return nil
    }

    /// `true` once the server has closed the socket, waiting up to `timeout`.
    func waitUntilClosed(timeout: Duration = patience) async -> Bool {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            let (message, closed) = await inbox.take()
            if message == nil && closed { return true }
            try? await Task.sleep(for: .milliseconds(10))
        }
        return false
    }

    func close() async {
        outgoing.finish()
        _ = await task.value
    }
}

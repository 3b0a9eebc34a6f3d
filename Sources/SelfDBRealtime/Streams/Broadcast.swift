import Foundation
import SelfDBRuntime

/// Hands each value to every current listener's `AsyncStream` — the state and problem streams
/// can have several readers, which one `AsyncStream` cannot.
final class Broadcast<Element: Sendable>: Sendable {
    private let listeners = Locked<[UUID: AsyncStream<Element>.Continuation]>([:])
    private let latest: Locked<Element?>

    /// `initial`, when given, is replayed to each new listener (then every later value).
    init(initial: Element? = nil) {
        latest = Locked(initial)
    }

    func stream() -> AsyncStream<Element> {
        let (stream, continuation) = AsyncStream<Element>.makeStream(bufferingPolicy: .bufferingNewest(256))
        let id = UUID()
        listeners.withLock { $0[id] = continuation }
        if let current = latest.current {
            continuation.yield(current)
        }
        continuation.onTermination = { [weak self] _ in
            _ = self?.listeners.withLock { $0.removeValue(forKey: id) }
        }
        return stream
    }

    func send(_ value: Element, remember: Bool = false) {
        if remember {
            latest.withLock { $0 = value }
        }
        for continuation in listeners.current.values {
            continuation.yield(value)
        }
    }
}

import Foundation
import SelfDBRuntime

/// Tells live fetchers that their type changed in the cache, and knows which views are in
/// use (eviction spares them).
final class ChangeBroadcaster: Sendable {
    /// What a fetcher is told.
    enum Event: Sendable, Hashable {
        /// Items of the type changed: re-read the view from the cache.
        case changed
        /// Refetch from the server, unless you are this view.
        case reload(except: String?)
    }

    private struct Subscriber {
        var key: ViewKey
        var continuation: AsyncStream<Event>.Continuation
    }

    private let subscribers = Locked<[UUID: Subscriber]>([:])

    /// Events for `key`'s type until the stream is dropped.
    func subscribe(_ key: ViewKey) -> AsyncStream<Event> {
        let (stream, continuation) = AsyncStream<Event>.makeStream(bufferingPolicy: .bufferingNewest(8))
        let id = UUID()
        subscribers.withLock { $0[id] = Subscriber(key: key, continuation: continuation) }
        continuation.onTermination = { [weak self] _ in
            self?.subscribers.withLock { _ = $0.removeValue(forKey: id) }
        }
        return stream
    }

    /// Sends `event` to every subscriber of `typeName`.
    func post(_ event: Event, typeName: String) {
        let targets = subscribers.withLock { $0.values.filter { $0.key.typeName == typeName } }
        for target in targets {
            if case .reload(let except) = event, except == target.key.view { continue }
            target.continuation.yield(event)
        }
    }

    /// The views with a live fetcher.
    var viewsInUse: Set<ViewKey> {
        subscribers.withLock { Set($0.values.map(\.key)) }
    }
}

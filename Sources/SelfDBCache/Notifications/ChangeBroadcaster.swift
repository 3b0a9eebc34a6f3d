import Foundation
import SelfDBRuntime

/// Tells live fetchers that their type changed in the cache, and knows which views are in
/// use (eviction spares them).
final class ChangeBroadcaster: Sendable {
    /// What a fetcher is told.
    enum Event: Sendable, Hashable {
        /// Items of the type changed: re-read the view from the cache.
        case changed
        /// Refetch from the server: every view of the type, or all but one, or only one.
        case reload(ReloadScope)
    }

    /// Which views of a type a reload reaches.
    enum ReloadScope: Sendable, Hashable {
        /// Every view but this one (every view if nil).
        case except(String?)
        /// This view only.
        case only(String)

        func includes(_ view: String) -> Bool {
            switch self {
            case .except(let excluded): view != excluded
            case .only(let included): view == included
            }
        }
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
            if case .reload(let scope) = event, !scope.includes(target.key.view) { continue }
            target.continuation.yield(event)
        }
    }

    /// The list views (not single items' views) of `typeName` with a live fetcher, sorted.
    func liveViews(typeName: String) -> [String] {
        let views = subscribers.withLock { $0.values.filter { $0.key.typeName == typeName }.map(\.key.view) }
        return Set(views).filter { ViewName.problem($0) == nil }.sorted()
    }

    /// The views with a live fetcher.
    var viewsInUse: Set<ViewKey> {
        subscribers.withLock { Set($0.values.map(\.key)) }
    }
}

import Foundation
import SelfDBRuntime

/// The app's handlers of one kind of event, added and removed from any thread.
final class EventHandlers<Handler: Sendable>: Sendable {
    private let handlers = Locked<[UUID: Handler]>([:])

    /// Adds `handler`; cancelling the result removes it.
    func add(_ handler: Handler) -> SynchroCancellable {
        let id = UUID()
        handlers.withLock { $0[id] = handler }
        return SynchroCancellable { [weak self] in
            self?.handlers.withLock { $0[id] = nil }
        }
    }

    /// The handlers now registered.
    var all: [Handler] { Array(handlers.current.values) }
}

import Foundation
import SelfDBRuntime

/// Stops an observation or removes an event handler when cancelled (or released).
public final class SynchroCancellable: Sendable {
    private let action: Locked<(@Sendable () -> Void)?>

    init(_ action: @escaping @Sendable () -> Void) {
        self.action = Locked(action)
    }

    /// Stops the observation; later calls do nothing.
    public func cancel() {
        let action = self.action.withLock { action -> (@Sendable () -> Void)? in
            defer { action = nil }
            return action
        }
        action?()
    }

    deinit {
        cancel()
    }
}

import SelfDBRuntime

/// One pending retry at a time, with the delay doubling after each failed try (capped at
/// 64× the first) and reset by a success.
final class RetryTimer: Sendable {
    private struct State {
        var task: Task<Void, Never>?
        var failures = 0
    }

    private let interval: Duration
    private let state = Locked(State())

    init(interval: Duration) {
        self.interval = interval
    }

    deinit {
        state.withLock { $0.task?.cancel() }
    }

    /// Runs `attempt` after the current delay, and again (longer) for as long as it answers
    /// true ("still failing"), unless a timer is already waiting.
    func schedule(_ attempt: @escaping @Sendable () async -> Bool) {
        state.withLock { state in
            guard state.task == nil else { return }
            state.task = Task { [weak self] in
                while let self, !Task.isCancelled {
                    let delay = self.interval * (1 << min(self.state.withLock { $0.failures }, 6))
                    try? await Task.sleep(for: delay)
                    guard !Task.isCancelled else { break }
                    let failing = await attempt()
                    let again = self.state.withLock { state in
                        state.failures = failing ? state.failures + 1 : 0
                        if !failing { state.task = nil }
                        return failing
                    }
                    if !again { return }
                }
            }
        }
    }

    /// Forgets earlier failures; the next retry waits the first delay again.
    func reset() {
        state.withLock { $0.failures = 0 }
    }
}

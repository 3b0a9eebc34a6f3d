import EmulatorSupport
import Foundation

/// The in-process knobs tests turn: request log, injected faults and token lifetime; and how
/// many requests of a kind were being answered at once.
/// Nothing here is reachable over the wire.
final class TestControls: Sendable {
    private struct PendingFault {
        var method: String
        var path: String
        var fault: InjectedFault
        var remaining: Int
    }

    private let log = Locked<[RecordedRequest]>([])
    private let faults = Locked<[PendingFault]>([])
    private let tokenLifetime: Locked<TimeInterval>
    /// Per method and path: the requests being answered now, and the most there were at once.
    private let atOnce = Locked<[String: (now: Int, most: Int)]>([:])
    /// Per method and path: answers held until this many requests are being answered at once.
    private let holds = Locked<[String: (count: Int, until: ContinuousClock.Instant)]>([:])
    /// Bounds memory for long-running executables; tests never come near it.
    private let maximumLogEntries = 100_000

    init(accessTokenLifetime: TimeInterval) {
        tokenLifetime = Locked(accessTokenLifetime)
    }

    var accessTokenLifetime: TimeInterval {
        get { tokenLifetime.current }
        set { tokenLifetime.withLock { $0 = newValue } }
    }

    private let rotationDelay = Locked<Duration>(.zero)

    /// The pause between validating a refresh token and rotating it (none by default).
    var refreshRotationDelay: Duration {
        get { rotationDelay.current }
        set { rotationDelay.withLock { $0 = newValue } }
    }

    func record(_ request: RecordedRequest) {
        log.withLock { entries in
            if entries.count >= maximumLogEntries {
                entries.removeFirst(entries.count / 2)
            }
            entries.append(request)
        }
    }

    var recorded: [RecordedRequest] { log.current }

    func resetLog() {
        log.withLock { $0.removeAll() }
        atOnce.withLock { counts in
            for (key, count) in counts { counts[key] = (count.now, count.now) }
        }
    }

    /// A request of this method and path is being answered (until ``end(method:path:)``).
    func begin(method: String, path: String) {
        atOnce.withLock { counts in
            let key = method + " " + path
            let now = (counts[key]?.now ?? 0) + 1
            counts[key] = (now, max(now, counts[key]?.most ?? 0))
        }
    }

    func end(method: String, path: String) {
        atOnce.withLock { counts in
            let key = method + " " + path
            if let count = counts[key] { counts[key] = (max(0, count.now - 1), count.most) }
        }
    }

    /// Holds the answers to requests of this method and path until `count` of them are being
    /// answered at once, or `timeout` has passed; then lets every answer go, once.
    func hold(method: String, path: String, untilAtOnce count: Int, timeout: Duration) {
        holds.withLock { $0[method + " " + path] = (count, .now + timeout) }
    }

    /// Waits as ``hold(method:path:untilAtOnce:timeout:)`` says, if a hold is set for this kind.
    func waitForHold(method: String, path: String) async {
        let key = method + " " + path
        while let hold = holds.current[key] {
            if (atOnce.current[key]?.now ?? 0) >= hold.count || ContinuousClock.now >= hold.until {
                holds.withLock { $0[key] = nil }
                return
            }
            try? await Task.sleep(for: .milliseconds(5))
        }
    }

    /// The most requests of this method and path answered at once since start (or the last
    /// ``resetLog()``).
    func mostAtOnce(method: String, path: String) -> Int {
        atOnce.current[method + " " + path]?.most ?? 0
    }

    func inject(_ fault: InjectedFault, method: String, path: String, count: Int) {
        guard count > 0 else { return }
        faults.withLock {
            $0.append(PendingFault(method: method.uppercased(), path: path, fault: fault, remaining: count))
        }
    }

    func clearFaults() {
        faults.withLock { $0.removeAll() }
    }

    /// Consumes one use of the first fault registered for this method and path.
    func takeFault(method: String, path: String) -> InjectedFault? {
        faults.withLock { pending in
            guard let index = pending.firstIndex(where: { $0.method == method && $0.path == path }) else { return nil }
            let fault = pending[index].fault
            pending[index].remaining -= 1
            if pending[index].remaining == 0 {
                pending.remove(at: index)
            }
            return fault
        }
    }
}

import Foundation
import Logging
import SelfDB

/// Sends the durable mutation queue in order, one drain at a time.
///
/// A transient failure (no network, 503, signed out) stops the drain and leaves the rest
/// queued; a refusal rolls the mutation back and moves on.
actor MutationSender {
    /// How one mutation ended.
    enum Outcome: Sendable {
        case confirmed(StoredItem?)
        case rejected(CacheError)
    }

    private let storage: any CacheStorage
    private let broadcaster: ChangeBroadcaster
    private let logger: Logger
    /// How often a mutation whose send may have landed unanswered is sent again in one drain.
    private let retryPolicy: RetryPolicy
    private var senders: [String: ItemSender] = [:]
    private var tail: Task<SyncReport, Never>?
    private var expected: [Int64: Outcome?] = [:]

    init(storage: any CacheStorage, broadcaster: ChangeBroadcaster, logger: Logger, retryPolicy: RetryPolicy = RetryPolicy()) {
        self.storage = storage
        self.broadcaster = broadcaster
        self.logger = logger
        self.retryPolicy = retryPolicy
    }

    /// Sets the sender of a type; the first registration of a type stays.
    func register(_ typeName: String, _ sender: ItemSender) {
        if senders[typeName] == nil { senders[typeName] = sender }
    }

    /// Whether mutations of `kind` can be sent for the type; nil if it is not registered.
    func supports(_ typeName: String, _ kind: MutationKind) -> Bool? {
        senders[typeName].map { $0.supports(kind) }
    }

    /// Keeps the outcome of `sequence` for `takeOutcome`.
    func expect(_ sequence: Int64) {
        expected[sequence] = .some(nil)
    }

    /// The outcome of an expected mutation; `nil` while it is still queued.
    func takeOutcome(_ sequence: Int64) -> Outcome? {
        expected.removeValue(forKey: sequence) ?? nil
    }

    /// Sends everything queued, after any drain already running.
    ///
    /// Cancelling the calling task stops the drain after the mutation being sent (whose send
    /// is cancelled too): the report says `.cancelled`, and what is left stays queued.
    @discardableResult
    func drain() async -> SyncReport {
        let previous = tail
        let task = Task {
            _ = await previous?.value
            return await self.sendAll()
        }
        tail = task
        return await withTaskCancellationHandler {
            await task.value
        } onCancel: {
            task.cancel()
        }
    }

    private func sendAll() async -> SyncReport {
        var report = SyncReport()
        if let queued = try? storage.pendingMutationCount(), queued > 0 {
            logger.info("cache: sending \(queued) queued mutation\(queued == 1 ? "" : "s")")
        }
        defer { log(report) }
        // Sends of the mutation at the head of the queue that ended without an answer.
        var unanswered: (sequence: Int64, count: Int) = (0, 0)
        while true {
            if Task.isCancelled {
                report.stoppedBy = .cancelled
                break
            }
            let next: PendingMutation?
            do {
                next = try storage.nextPendingMutation()
            } catch {
                report.stoppedBy = .storage("\(error)")
                break
            }
            guard let mutation = next else { break }
            guard let sender = senders[mutation.typeName] else {
                report.stoppedBy = .invalidArgument(
                    "nothing registered for '\(mutation.typeName)'; call register(_:) for a table model or register(_:mutations:) for another model before synchronize()"
                )
                break
            }
            do {
                // Durably noted before sending: after a crash, the replay knows the server
                // may have it. `mutation.attempted` still says whether an earlier send started.
                try storage.markAttempted(mutation.sequence, true)
                let stored = try await sender.send(mutation)
                try storage.confirm(mutation, server: stored)
                logger.debug("cache: \(mutation.kind.rawValue) of \(mutation.typeName) \(mutation.itemId) confirmed")
                report.sent += 1
                record(mutation.sequence, .confirmed(stored))
            } catch let error as CacheError {
                report.stoppedBy = error
                break
            } catch {
                let refusal: CacheError
                if let failure = error.clientError {
                    if failure.isTransient {
                        if mutation.sequence != unanswered.sequence { unanswered = (mutation.sequence, 0) }
                        unanswered.count += 1
                        if await sendsAgain(mutation, after: failure, unansweredSends: unanswered.count) { continue }
                        report.stoppedBy = .offline(failure)
                        break
                    }
                    refusal = .rejected(failure)
                } else if error is CancellationError {
                    // The send was cancelled, not answered: it stays queued, and the server may
                    // have it (the next send looks first).
                    report.stoppedBy = .cancelled
                    break
                } else {
                    refusal = .refused(error)
                }
                do {
                    try storage.rollback(mutation)
                } catch {
                    report.stoppedBy = .storage("\(error)")
                    break
                }
                logger.warning("cache: \(mutation.kind.rawValue) of \(mutation.typeName) \(mutation.itemId) refused; rolled back")
                report.rejected.append(refusal)
                record(mutation.sequence, .rejected(refusal))
            }
            broadcaster.post(.changed, typeName: mutation.typeName)
        }
        report.remaining = (try? storage.pendingMutationCount()) ?? 0
        return report
    }

    /// After a send that failed with no word on the mutation: whether to send it again in this
    /// drain (after a backoff).
    ///
    /// A send that certainly did not reach the server leaves nothing to settle: unless an
    /// earlier one may have, the next send needs no look first. The drain then stops (the
    /// server is unreachable). A send that may have reached it (its answer lost or cut) met a
    /// server that was there a moment ago: the mutation is sent again here, up to the retry
    /// policy's attempts, and the sender settles it first (an insert is looked for).
    private func sendsAgain(_ mutation: PendingMutation, after failure: SelfDBError, unansweredSends: Int) async -> Bool {
        if failure.delivery == .notSent, !mutation.attempted {
            try? storage.markAttempted(mutation.sequence, false)
        }
        guard failure.outcomeIsUnknown, unansweredSends < retryPolicy.maxAttempts else { return false }
        let delay = retryPolicy.delay(afterAttempt: unansweredSends, retryAfter: nil)
        logger.info("cache: no answer to the \(mutation.kind.rawValue) of \(mutation.typeName) \(mutation.itemId); settling and sending it again in \(Int(delay * 1000)) ms")
        do {
            try await Task.sleep(for: .seconds(delay))
        } catch {
            return false
        }
        return true
    }

    /// How a drain ended, when there was anything to say.
    private func log(_ report: SyncReport) {
        guard report.sent > 0 || !report.rejected.isEmpty || report.stoppedBy != nil else { return }
        let stopped =
            report.stoppedBy.map { error -> String in
                if case .offline = error { return "; stopped: the server is unreachable" }
                return "; stopped: \(error.isCancellation ? "cancelled" : "an error")"
            } ?? ""
        logger.info("cache: sent \(report.sent), refused \(report.rejected.count), still queued \(report.remaining)\(stopped)")
    }

    private func record(_ sequence: Int64, _ outcome: Outcome) {
        if expected[sequence] != nil { expected[sequence] = .some(outcome) }
    }
}

/// What a `synchronize()` did.
public struct SyncReport: Sendable {
    /// Mutations the server accepted.
    public var sent = 0
    /// Mutations the server refused (each rolled back in the cache).
    public var rejected: [CacheError] = []
    /// Mutations still queued.
    public var remaining = 0
    /// Why sending stopped early (offline, storage), if it did.
    public var stoppedBy: CacheError?
    /// Queued uploads the server now holds (``SelfDBCache/queueUpload(_:bucketId:bucketName:filename:path:contentType:)``).
    public var uploaded = 0
    /// Queued uploads the server refused (each marked failed, its copy removed).
    public var failedUploads: [CacheError] = []
    /// Uploads still queued; while any is, no mutation is sent (a row that refers to a file
    /// goes after it).
    public var uploadsRemaining = 0
}

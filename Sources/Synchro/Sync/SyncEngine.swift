import Foundation
import GRDB
import Logging
import SelfDBRuntime

/// The sync loop behind a ``SynchroClient``: start-up (schema, registration, snapshot),
/// cycles of push-then-pull on the timer, after local writes and on demand, retries, and
/// status. Its control state sits behind a lock so that `stop()` can be synchronous; the
/// network and database work runs in one cycle task at a time.
final class SyncEngine: Sendable {
    enum Phase: Sendable {
        case stopped, starting, running
    }

    struct State: Sendable {
        var phase: Phase = .stopped
        var status: SyncStatus = .stopped
        var timer: Task<Void, Never>?
        var debounce: Task<Void, Never>?
        var cycle: Task<Void, any Error>?
        /// Which cycle task `cycle` is, so a cancelled one winding down after a restart
        /// does not clear its successor.
        var cycleGeneration = 0
        /// A cycle was asked for while one ran: run another when it ends (overlapping
        /// requests merge into at most one more cycle).
        var rerun = false
    }

    let config: SynchroConfig
    let database: DatabasePool
    let api: SynchroAPI
    /// The same client for protocol 2's endpoints.
    let apiV2: SynchroV2API
    /// The protocol the server speaks, as last learned (0: not known yet).
    let protocolVersion = Locked(0)
    /// Whether the write-ahead log is folded into the file (``foldWriteAheadLogSoon()``).
    let logFold: LogFoldState
    /// What the writer's provenance upserts replaced (``ScopeState/Tagger``); its function is
    /// on the writer.
    let replacedChecksums: ReplacedChecksums
    let statusHandlers = EventHandlers<@Sendable (SyncStatus) -> Void>()
    let conflictHandlers = EventHandlers<@Sendable (ConflictEvent) -> Void>()
    let snapshotHandlers = EventHandlers<@Sendable () async -> Bool>()
    let rejectionHandlers = EventHandlers<@Sendable (MutationRejection) -> Void>()
    let state = Locked(State())
    /// The synced tables as last installed; nil until the schema is known.
    let schema: Locked<LocalSchema?>

    init(config: SynchroConfig, database: DatabasePool, schema: LocalSchema?, transport: any HTTPTransport, logFold: LogFoldState, replacedChecksums: ReplacedChecksums) {
        self.config = config
        self.database = database
        self.logFold = logFold
        self.replacedChecksums = replacedChecksums
        self.schema = Locked(schema)
        let configuration = APIClient.Configuration(
            baseURL: config.serverURL,
            errorKinds: SynchroAPI.errorKinds,
            additionalHeaders: ["X-App-Version": config.appVersion],
            // The engine retries whole cycles itself, with the protocol's own backoff.
            retryPolicy: .none,
            logger: config.logger
        )
        let client = APIClient(configuration: configuration, transport: transport, accessTokenProvider: config.authProvider)
        self.api = SynchroAPI(api: client)
        self.apiV2 = SynchroV2API(api: client)
    }

    var status: SyncStatus { state.current.status }

    /// Reports `status`; a cycle's statuses only while sync runs, so a cycle winding down
    /// after `stop()` does not overwrite `stopped`.
    func setStatus(_ status: SyncStatus, fromCycle: Bool = false) {
        let changed = state.withLock { state -> Bool in
            guard state.status != status, !fromCycle || state.phase == .running else { return false }
            state.status = status
            return true
        }
        if changed {
            for handler in statusHandlers.all { handler(status) }
        }
    }

    // MARK: - Control

    func start(options: SyncOptions? = nil) async throws {
        let claimed = state.withLock { state -> Bool in
            guard state.phase == .stopped else { return false }
            state.phase = .starting
            return true
        }
        guard claimed else { throw SynchroError.alreadyStarted }
        do {
            try await bootstrap()
            state.withLock { $0.phase = .running }
            startTimer()
            do {
                try await requestCycle()
            } catch let error as SynchroError where isPushRejection(error) {
                // The cycle completed (pulled too); only some changes were refused for good.
                options?.initialSyncCompleted?()
                throw error
            }
            options?.initialSyncCompleted?()
        } catch let error as SynchroError where isPushRejection(error) {
            throw error
        } catch {
            stop(status: .error(retryAt: nil))
            throw SynchroError.from(error, appVersion: config.appVersion)
        }
    }

    func stop() {
        stop(status: .stopped)
    }

    private func stop(status: SyncStatus) {
        // Cancelled under the lock, so that nothing generic crosses it: the first `stop()` of a
        // process paid 0.15–0.2 ms for the runtime to build the type of an array of tasks.
        state.withLock { state in
            state.phase = .stopped
            state.cycle?.cancel()
            state.timer?.cancel()
            state.debounce?.cancel()
            state.timer = nil
            state.debounce = nil
        }
        setStatus(status)
    }

    /// A cycle now, merged with one already running; throws what the cycle threw.
    func syncNow() async throws {
        let phase = state.current.phase
        switch phase {
        case .stopped: throw SynchroError.notStarted
        case .starting: throw SynchroError.notConnected
        case .running: try await requestCycle()
        }
    }

    /// Called after the app wrote through the client: push after `pushDebounce`.
    func localWriteHappened() {
        let delay = config.pushDebounce
        state.withLock { state in
            guard state.phase == .running else { return }
            state.debounce?.cancel()
            state.debounce = Task { [weak self] in
                guard (try? await Task.sleep(for: .seconds(delay))) != nil else { return }
                try? await self?.requestCycle()
            }
        }
    }

    private func startTimer() {
        let interval = max(config.syncInterval, 0.05)
        let timer = Task { [weak self] in
            while !Task.isCancelled {
                guard (try? await Task.sleep(for: .seconds(interval))) != nil else { return }
                try? await self?.requestCycle()
            }
        }
        state.withLock { $0.timer = timer }
    }

    // MARK: - Cycles

    func requestCycle() async throws {
        let task = state.withLock { state -> Task<Void, any Error>? in
            guard state.phase == .running else { return nil }
            if let running = state.cycle {
                state.rerun = true
                return running
            }
            state.cycleGeneration += 1
            let generation = state.cycleGeneration
            let task = Task { try await self.runCycles(generation: generation) }
            state.cycle = task
            return task
        }
        guard let task else { throw SynchroError.notStarted }
        try await task.value
    }

    /// Cycles until nobody asked for another meanwhile.
    private func runCycles(generation: Int) async throws {
        defer {
            state.withLock { state in
                if state.cycleGeneration == generation { state.cycle = nil }
            }
            foldWriteAheadLogSoon()
        }
        while true {
            state.withLock { $0.rerun = false }
            try await cycleWithRetries()
            let again = state.withLock { state -> Bool in
                guard state.rerun, !Task.isCancelled else { return false }
                return true
            }
            if !again { return }
        }
    }

    private func cycleWithRetries() async throws {
        let attempts = max(1, config.maxRetryAttempts)
        var attempt = 0
        while true {
            attempt += 1
            try Task.checkCancellation()
            setStatus(.syncing, fromCycle: true)
            do {
                let started = ContinuousClock.now
                try await cycleOnce()
                config.logger.info("sync cycle done in \(ContinuousClock.now - started)")
                setStatus(.idle, fromCycle: true)
                return
            } catch let error as SynchroError where isPushRejection(error) {
                setStatus(.idle, fromCycle: true)
                throw error
            } catch {
                // Stopped: a cancelled request may surface as a URL error; either way the
                // status is `stopped` and stays so.
                if error is CancellationError || Task.isCancelled { throw CancellationError() }
                if case .retryable(let retryAfter) = FailureKind(error), attempt < attempts {
                    let delay = Backoff.delay(afterAttempt: attempt, retryAfter: retryAfter)
                    config.logger.info("sync cycle failed (\(type(of: error))); retrying in \(String(format: "%.1f", delay)) s (attempt \(attempt + 1) of \(attempts))")
                    setStatus(.error(retryAt: Date().addingTimeInterval(delay)), fromCycle: true)
                    try await Task.sleep(for: .seconds(delay))
                    continue
                }
                setStatus(.error(retryAt: nil), fromCycle: true)
                let failure = SynchroError.from(error, appVersion: config.appVersion)
                config.logger.error("sync cycle failed after \(attempt) attempt\(attempt == 1 ? "" : "s"): \(failure.logSummary)")
                throw failure
            }
        }
    }

    /// Push until nothing is pending, then pull until the server has nothing more; a schema
    /// change or a lost registration is repaired once on the way.
    private func cycleOnce() async throws {
        var rejected: [PushResult] = []
        try await recovering {
            let speaksTwo = protocolVersion.current == 2
            let pushed = try await pushAll(pullingAhead: speaksTwo)
            rejected += pushed.rejected
            if speaksTwo {
                try await pullAllV2(ahead: pushed.pullAhead)
            } else {
                try await pullAll()
            }
        }
        if !rejected.isEmpty { throw SynchroError.pushRejected(results: rejected) }
    }

    /// Runs `body`; on a changed schema migrates (protocol 1: schema then register; protocol
    /// 2: connect, which answers `replace`), on a lost registration registers or connects
    /// again, then runs it once more — pending writes stay queued throughout.
    func recovering(_ body: () async throws -> Void) async throws {
        do {
            try await body()
        } catch {
            let kind = FailureKind(error)
            switch kind {
            case .schemaChanged, .unregistered:
                if protocolVersion.current == 2 {
                    config.logger.info("sync: \(kind.isSchemaChange ? "the server's schema changed" : "the server no longer knows this client"); connecting again")
                    try await connect()
                } else if kind.isSchemaChange {
                    try await refreshSchema()
                    try await register()
                } else {
                    try await register()
                }
            default:
                throw error
            }
            do {
                try await body()
            } catch  where FailureKind(error).isSchemaChange {
                let current = schema.current
                throw SynchroError.schemaMismatch(serverVersion: current?.version ?? 0, serverHash: current?.hash ?? "")
            }
        }
    }

    private func isPushRejection(_ error: SynchroError) -> Bool {
        if case .pushRejected = error { return true }
        return false
    }

    /// The schema, or `schemaNotLoaded`.
    func currentSchema() throws -> LocalSchema {
        guard let schema = schema.current else { throw SynchroError.schemaNotLoaded }
        return schema
    }
}

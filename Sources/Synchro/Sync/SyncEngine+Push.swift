import Foundation
import GRDB
import SelfDBRuntime

extension SyncEngine {
    /// Pushes every pending change, parents' tables first, in batches of `pushBatchSize` (on
    /// protocol 2 the first batch's size: the next grow while the server answers quickly).
    /// Returns the changes the server rejected for good (and the pull asked for ahead).
    ///
    /// Two batches may be on the wire at once: the next batch is read, marked in flight and
    /// sent while the server still works on the one before, whose answer is then awaited (the
    /// server parses the next while it writes the first, and starts writing it at once). A
    /// batch is sent early only when none of its tables depends on a table of the batch still
    /// unanswered (``LocalSchema/dependsOn(_:_:)``: a child waits for its parent's answer, whose
    /// settlement may remove a refused parent), and no record of either batch is named by a
    /// value of the other (``OutgoingChange/linked(_:_:)``: protocol 2 names no parents, and a
    /// server may run two pushes in two transactions, where a child's scopes would be computed
    /// without its parent).
    ///
    /// The next batch's rows are read ahead (``PendingQueue/readAhead(_:schema:in:)``, a read
    /// transaction beside the writer) and checked when it is marked in flight, so a record
    /// changed in between is read again then. A batch the server took whole is settled while
    /// the next one is on the wire: its settlement starts once the next batch is marked, so the
    /// two do not queue for the writer while the server waits.
    ///
    /// On protocol 2 a round is put in reference order first (``PendingQueue/referenceOrder(_:schema:in:)``).
    ///
    /// `pullingAhead` (protocol 2): once the server has answered the last batch, the cycle's
    /// first pull page is asked for while the last batches are settled here (the server has
    /// written every push by then, and settling changes no cursor). It is returned when
    /// nothing is pending after them; otherwise it is cancelled, and the next round pushed.
    func pushAll(pullingAhead: Bool = false) async throws -> PushCycle {
        let schema = try currentSchema()
        let rank = schema.pushRank
        let applier = RecordApplier(schema: schema)
        let batchSize = SynchroConfig.clamped(config.pushBatchSize)
        // Protocol 2 names no parents: a round goes parents first by what its records name.
        let ordersByReferences = protocolVersion.current == 2
        // On protocol 2, batches grow as pull pages do while the server answers them quickly
        // (PageSize, up to 1,000); a cycle starts again from `pushBatchSize`.
        let growsBatches = protocolVersion.current == 2
        var sizes = PageSize(configured: batchSize)
        // Takes in how long the server took to answer `batch`.
        func answered(_ batch: SentBatch) {
            if growsBatches { sizes.record(asked: batch.outgoing.count, took: ContinuousClock.now - batch.started, hasMore: true) }
        }
        var watermark: Int64 = 0
        var rejected: [PushResult] = []
        var isolation = BatchIsolation()
        var settlements = Settlements(engine: self, schema: schema, applier: applier)
        // The batch sent and not yet answered.
        var onTheWire: SentBatch?
        var pullAhead: PullAhead?
        do {
            while true {
                let after = watermark
                // Nothing to push, the usual case: a read says so, and nothing is written. On a
                // cycle's first round the same read makes the pull's first request, sent at once
                // when nothing is pending.
                let asksPull = pullingAhead && after == 0
                let (idle, pullRequest) = try await database.read { [config] db in
                    let idle = try PendingQueue.isEmpty(after: after, in: db)
                    return (idle, idle && asksPull ? try Self.firstPullRequest(schema: schema, config: config, in: db) : nil)
                }
                if let pullRequest { pullAhead = askPull(pullRequest) }
                var round: (keys: [(table: String, id: String)], highest: Int64) = ([], after)
                if !idle {
                    round = try await database.write { db in
                        let round = try PendingQueue.round(after: after, rank: rank, in: db)
                        guard ordersByReferences else { return round }
                        return (keys: try PendingQueue.referenceOrder(round.keys, schema: schema, in: db), highest: round.highest)
                    }
                }
                guard !round.keys.isEmpty else {
                    let setAside = try await setAside(isolation, schema: schema, applier: applier)
                    return PushCycle(rejected: rejected + setAside, pullAhead: pullAhead)
                }
                pullAhead?.page.cancel()
                pullAhead = nil
                watermark = round.highest
                // The batches are cut as they go: on protocol 2 each takes the size the answers
                // so far allow (PageSize), the next one's when it is read ahead.
                var taken = min(sizes.current, round.keys.count)
                var keys = round.keys[0..<taken]
                var readAhead: Task<[ReadAheadChange?], any Error>?
                defer { readAhead?.cancel() }
                while !keys.isEmpty {
                    let read = try await readAhead?.value ?? []
                    readAhead = nil
                    let outgoing = try await database.write { [keys] db in try PendingQueue.prepare(keys, readAhead: read, schema: schema, in: db) }
                    settlements.start()
                    let end = min(taken + sizes.current, round.keys.count)
                    let next = round.keys[taken..<end]
                    taken = end
                    if !next.isEmpty {
                        let database = database
                        readAhead = Task { try await database.read { db in try PendingQueue.readAhead(next, schema: schema, in: db) } }
                    }
                    keys = next
                    guard !outgoing.isEmpty else { continue }
                    if let earlier = onTheWire,
                        schema.dependsOn(outgoing.map(\.pending.table), earlier.outgoing.map(\.pending.table))
                            || OutgoingChange.linked(outgoing, earlier.outgoing)
                    {
                        onTheWire = nil
                        rejected += try await receive(earlier, schema: schema, applier: applier, isolation: &isolation, settlements: &settlements)
                        answered(earlier)
                    }
                    let earlier = onTheWire
                    onTheWire = SentBatch(outgoing: outgoing, answer: Task { try await self.send(outgoing, schema: schema) })
                    if let earlier {
                        rejected += try await receive(earlier, schema: schema, applier: applier, isolation: &isolation, settlements: &settlements)
                        answered(earlier)
                    }
                }
                if let last = onTheWire {
                    onTheWire = nil
                    // The batches answered before it settle while it is on the wire.
                    settlements.start()
                    rejected += try await receive(last, schema: schema, applier: applier, isolation: &isolation, settlements: &settlements)
                }
                // The pull brings back at least what was pushed (protocol 2 sends a device its own
                // writes): after batches that grew, it starts at their size, which the server has
                // just answered quickly. Otherwise at the configured one, as any cycle's pull does.
                if pullingAhead {
                    let grown = sizes.current > batchSize ? max(SynchroConfig.clamped(config.pullPageSize), sizes.current) : nil
                    pullAhead = try await askFirstPullPage(schema: schema, limit: grown)
                }
                // The next round reads what is pending after this one's records (edited during
                // their push, say): they are settled first, or a settlement would take a new
                // send's record out of flight.
                rejected += try await settlements.finish()
            }
        } catch {
            pullAhead?.page.cancel()
            // The batches answered are settled before the cycle fails, and the one still on
            // the wire when the server answers it (whatever the answer: its refusals are
            // recorded and reported as any are): the next cycle must not send again what the
            // server took, whose inserts would come back as conflicts.
            if let last = onTheWire {
                if Task.isCancelled { last.answer.cancel() }
                if let response = try? await last.answer.value { settlements.add(response, sent: last.outgoing) }
            }
            _ = try? await settlements.finish()
            throw error
        }
    }

    /// What a cycle's pushes came to.
    struct PushCycle {
        /// The changes the server rejected for good.
        var rejected: [PushResult]
        /// The first pull page, asked for once the last batch was answered.
        var pullAhead: PullAhead?
    }

    /// A batch marked in flight and sent, and its answer to come.
    struct SentBatch {
        let outgoing: [OutgoingChange]
        let answer: Task<PushResponse, any Error>
        let started = ContinuousClock.now
    }

    /// The answer to `batch`, taken as ``pushIsolating(_:answer:schema:applier:tries:isolation:settlements:)``
    /// takes a send's.
    private func receive(
        _ batch: SentBatch,
        schema: LocalSchema,
        applier: RecordApplier,
        isolation: inout BatchIsolation,
        settlements: inout Settlements
    ) async throws -> [PushResult] {
        try await pushIsolating(
            batch.outgoing,
            answer: batch.answer,
            schema: schema,
            applier: applier,
            tries: 2,
            isolation: &isolation,
            settlements: &settlements
        )
    }

    /// The settlements of the batches the server took whole. An answered batch waits until
    /// ``start()`` (called once the next batch is marked in flight), then settles while that
    /// batch is on the wire, after the settlements started before it.
    struct Settlements {
        let engine: SyncEngine
        let schema: LocalSchema
        let applier: RecordApplier
        private var waiting: [(response: PushResponse, sent: [OutgoingChange])] = []
        /// The settlements started, one after another. Its value is the changes rejected for
        /// good (none: only batches nothing of which was refused settle this way).
        private var running: Task<[PushResult], any Error>?

        init(engine: SyncEngine, schema: LocalSchema, applier: RecordApplier) {
            (self.engine, self.schema, self.applier) = (engine, schema, applier)
        }

        mutating func add(_ response: PushResponse, sent: [OutgoingChange]) {
            waiting.append((response, sent))
        }

        /// Starts settling the waiting batches, in order, after those already started.
        mutating func start() {
            guard !waiting.isEmpty else { return }
            let (batches, previous, engine, schema, applier) = (waiting, running, engine, schema, applier)
            waiting = []
            running = Task {
                var rejected = try await previous?.value ?? []
                for batch in batches {
                    rejected += try await engine.settle(batch.response, sent: batch.sent, schema: schema, applier: applier)
                }
                return rejected
            }
        }

        /// Settles every batch answered so far and waits for them: the changes they rejected.
        mutating func finish() async throws -> [PushResult] {
            start()
            defer { running = nil }
            return try await running?.value ?? []
        }
    }

    /// What a cycle's pushes learned about the server's whole-batch failures.
    struct BatchIsolation {
        /// The server answered a push this cycle: it works, so a change it fails on alone is
        /// that change's fault.
        var serverAnswered = false
        /// The changes the server failed on alone, with its answer, to be set aside at the
        /// end of the cycle's pushes (once it is known whether the server took anything).
        var suspects: [(change: OutgoingChange, failure: any Error)] = []
    }

    /// Sends `outgoing` (or, on the first attempt, takes `answer`, a send already made) and
    /// settles the answer.
    ///
    /// Synchro 0.3.0 rolls a whole push back, and answers 500, when one mutation's write fails
    /// in its database (a value of the wrong type, a key that is not a UUID…), and it will do so
    /// every time that batch is sent: the official client stops there, its queue blocked for
    /// good. Here the batch is sent again after a backoff; if it fails again, each half is
    /// pushed the same way, until the change it fails on is alone. That one is set aside as
    /// rejected (`batch_rolled_back`, in `_synchro_rejected_mutations`, reported live), and
    /// the rest go through. A change is set aside only once the server has accepted another
    /// push in this cycle: a server that fails every push sets nothing aside, and the cycle
    /// fails with its error as before.
    private func pushIsolating(
        _ outgoing: [OutgoingChange],
        answer: Task<PushResponse, any Error>? = nil,
        schema: LocalSchema,
        applier: RecordApplier,
        tries: Int,
        isolation: inout BatchIsolation,
        settlements: inout Settlements
    ) async throws -> [PushResult] {
        // Two changes failing alone before the server took anything: it is failing as a whole,
        // and sending the rest one by one would only hammer it.
        if !isolation.serverAnswered, isolation.suspects.count >= 2, let first = isolation.suspects.first { throw first.failure }
        var failure: (any Error)?
        // A single change is always tried twice before it can be set aside.
        let tries = outgoing.count == 1 ? max(tries, 2) : tries
        for attempt in 1...max(1, tries) {
            do {
                let response: PushResponse
                if attempt == 1, let answer {
                    response = try await withTaskCancellationHandler {
                        try await answer.value
                    } onCancel: {
                        answer.cancel()
                    }
                } else {
                    response = try await send(outgoing, schema: schema)
                }
                isolation.serverAnswered = true
                guard Self.tookWhole(response, sent: outgoing) else {
                    // Settled now, after the batches before it, and before any batch after the
                    // one already sent is read: its settlement may remove a refused parent
                    // (a batch sent early holds no table that depends on this one's).
                    let earlier = try await settlements.finish()
                    return earlier + (try await settle(response, sent: outgoing, schema: schema, applier: applier))
                }
                // Settling a batch taken whole touches only its own records and pending rows
                // (no row removed, no conflict applied), so the next batch, a disjoint set of
                // records, goes out meanwhile and the server works on it while this one is
                // settled here.
                settlements.add(response, sent: outgoing)
                return []
            } catch let error where FailureKind.isBatchRollback(error) {
                failure = error
                config.logger.info("sync: the server failed a push of \(outgoing.count) change\(outgoing.count == 1 ? "" : "s") as a whole (attempt \(attempt))")
                if attempt < tries { try await Task.sleep(for: .seconds(Backoff.delay(afterAttempt: attempt, retryAfter: nil))) }
            }
        }
        if outgoing.count > 1 {
            let middle = outgoing.count / 2
            var rejected: [PushResult] = []
            for half in [Array(outgoing[..<middle]), Array(outgoing[middle...])] {
                rejected += try await pushIsolating(
                    half,
                    schema: schema,
                    applier: applier,
                    tries: 1,
                    isolation: &isolation,
                    settlements: &settlements
                )
            }
            return rejected
        }
        if let change = outgoing.first, let failure { isolation.suspects.append((change, failure)) }
        return []
    }

    /// Sets aside the changes the server failed on alone, as rejected `batch_rolled_back` —
    /// when it took other pushes this cycle; otherwise the server is failing as a whole, the
    /// changes stay pending, and its error fails the cycle.
    private func setAside(_ isolation: BatchIsolation, schema: LocalSchema, applier: RecordApplier) async throws -> [PushResult] {
        guard let first = isolation.suspects.first else { return [] }
        guard isolation.serverAnswered else { throw first.failure }
        let results = isolation.suspects.map { change, failure in
            config.logger.warning("sync: the server fails every push holding \(change.pending.table)/\(change.pending.recordID); setting it aside")
            var result = PushResult(id: change.change.id, tableName: change.change.tableName, operation: change.change.operation, status: .rejectedTerminal)
            result.reasonCode = RejectedMutations.batchRolledBack
            result.message = "the server failed every push holding this change: \(SynchroError.from(failure, appVersion: config.appVersion))"
            return result
        }
        // Settled as one answer, in one transaction, like any push response.
        return try await settle(
            PushResponse(accepted: [], rejected: results, checkpoint: 0, serverTime: Date(), schemaVersion: schema.version, schemaHash: schema.hash),
            sent: isolation.suspects.map(\.change),
            schema: schema,
            applier: applier
        )
    }

    /// Whether the server applied every change of the batch, refusing none.
    static func tookWhole(_ response: PushResponse, sent outgoing: [OutgoingChange]) -> Bool {
        response.rejected.isEmpty && response.accepted.count == outgoing.count && response.accepted.allSatisfy { $0.status == .applied }
    }

    /// One push request, in the protocol the server speaks.
    ///
    /// A push that certainly did not reach the server (it could not connect) takes its changes
    /// out of flight again, unless an earlier push of them may have landed: they go next time
    /// as first sends (a create as an insert), and their answers are read as any first send's.
    private func send(_ outgoing: [OutgoingChange], schema: LocalSchema) async throws -> PushResponse {
        do {
            if protocolVersion.current == 2 { return try await pushBatchV2(outgoing, schema: schema) }
            return try await api.sync.push(
                PushRequest(clientId: config.clientID, changes: outgoing.map(\.change), schemaVersion: schema.version, schemaHash: schema.hash)
            )
        } catch let error as SelfDBError where error.delivery == .notSent {
            let unsent = outgoing.map(\.pending).filter { !$0.sentBefore }
            if !unsent.isEmpty {
                try? await database.write { db in try PendingQueue.markNotInFlight(unsent, in: db) }
            }
            throw error
        }
    }

    /// Settles `response` in one transaction, then tells the app of conflicts and rejections.
    private func settle(_ response: PushResponse, sent outgoing: [OutgoingChange], schema: LocalSchema, applier: RecordApplier) async throws -> [PushResult] {
        let scoped = protocolVersion.current == 2
        let outcome = try await database.write { db in
            try MetaStore.withSyncLock(db) {
                try PushSettlement.settle(response, sent: outgoing, schema: schema, applier: applier, scoped: scoped, in: db)
            }
        }
        config.logger.info(
            "sync pushed \(outgoing.count) change\(outgoing.count == 1 ? "" : "s"), \(outcome.rejected.count) rejected, \(outcome.conflicts.count) conflict\(outcome.conflicts.count == 1 ? "" : "s")"
        )
        for event in outcome.conflicts {
            for handler in conflictHandlers.all { handler(event) }
        }
        for rejection in outcome.rejections {
            for handler in rejectionHandlers.all { handler(rejection) }
        }
        return outcome.rejected
    }
}

import Foundation
import SelfDBRuntime

extension RealtimeClient {
    /// Every insert, update and delete on `Row`'s table, decoded into the generated row type.
    ///
    /// ```swift
    /// for await change in try await selfdb.realtime.changes(Task.self) {
    ///     switch change {
    ///     case .insert(let task): ...
    ///     case .update(let task, let old): ...
    ///     case .delete(let task): ...
    ///     }
    /// }
    /// ```
    ///
    /// The channel `table:<name>` is joined before this returns, so no change made afterwards
    /// is missed while the socket stays up; it is joined again after reconnects, but changes
    /// made while it was down are not delivered: ``changeFeed(_:)`` says when that happened.
    /// The stream ends when the consumer stops iterating (or its task is cancelled); the
    /// channel is left when its last stream ends unless it was also `subscribe()`d. A change
    /// whose row does not decode is skipped and reported on ``problems()``.
    ///
    /// - Throws: ``RealtimeError/notConnected`` before `connect()`, or the join's error.
    public func changes<Row: TableModel>(_ type: Row.Type) async throws -> AsyncStream<TableChange<Row>> {
        try await stream(of: Row.self, tellingGaps: false) { $0.change }
    }

    /// ``changes(_:)`` with a ``TableFeedEvent/mayHaveMissedChanges`` element each time the
    /// channel is joined again after a drop, before any change made after that join: the
    /// moment to fetch again what the app shows.
    ///
    /// ```swift
    /// for await event in try await selfdb.realtime.changeFeed(Task.self) {
    ///     switch event {
    ///     case .change(let change): apply(change)
    ///     case .mayHaveMissedChanges: await reloadTasks()
    ///     }
    /// }
    /// ```
    ///
    /// - Throws: ``RealtimeError/notConnected`` before `connect()`, or the join's error.
    public func changeFeed<Row: TableModel>(_ type: Row.Type) async throws -> AsyncStream<TableFeedEvent<Row>> {
        try await stream(of: Row.self, tellingGaps: true) { $0 }
    }

    /// Joins `Row`'s channel for a new stream of `transform`ed feed events (nil ones skipped).
    private func stream<Row: TableModel, Element: Sendable>(
        of type: Row.Type,
        tellingGaps: Bool,
        _ transform: @escaping @Sendable (TableFeedEvent<Row>) -> Element?
    ) async throws -> AsyncStream<Element> {
        let channel = channel("table:\(Row.tableName)")
        let (stream, continuation) = AsyncStream<Element>.makeStream()
        let handler = channel.addHandler(.all) { [weak self] payload in
            do throws(RealtimeError) {
                if let element = transform(.change(try TableChange<Row>(payload))) { continuation.yield(element) }
            } catch {
                guard let self else { return }
                Task { await self.report(error) }
            }
        }
        // Armed once this call's join is done: a join before that is the stream's start, not a
        // gap (nothing was promised before the stream was returned); every join after it is.
        let armed = Locked(false)
        let rejoinHandler =
            tellingGaps
            ? channel.addJoinHandler { _ in
                if armed.current, let element = transform(.mayHaveMissedChanges) { continuation.yield(element) }
            }
            : nil
        _ = channel.changeStreamCount(by: 1)
        let removeHandlers: @Sendable () -> Void = {
            channel.removeHandler(handler)
            if let rejoinHandler { channel.removeJoinHandler(rejoinHandler) }
        }
        do {
            try await settle(channel)
        } catch {
            removeHandlers()
            _ = channel.changeStreamCount(by: -1)
            continuation.finish()
            throw error
        }
        armed.withLock { $0 = true }
        continuation.onTermination = { [weak self] _ in
            removeHandlers()
            guard channel.changeStreamCount(by: -1) == 0, !channel.isWanted, let self else { return }
            Task { try? await self.settle(channel) }
        }
        return stream
    }
}

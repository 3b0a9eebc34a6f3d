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
    /// is missed; it is joined again after reconnects. The stream ends when the consumer stops
    /// iterating (or its task is cancelled); the channel is left when its last stream ends
    /// unless it was also `subscribe()`d. A change whose row does not decode is skipped and
    /// reported on ``problems()``.
    ///
    /// - Throws: ``RealtimeError/notConnected`` before `connect()`, or the join's error.
    public func changes<Row: TableModel>(_ type: Row.Type) async throws -> AsyncStream<TableChange<Row>> {
        let channel = channel("table:\(Row.tableName)")
        let (stream, continuation) = AsyncStream<TableChange<Row>>.makeStream()
        let handler = channel.addHandler(.all) { [weak self] payload in
            do throws(RealtimeError) {
                continuation.yield(try TableChange<Row>(payload))
            } catch {
                guard let self else { return }
                Task { await self.report(error) }
            }
        }
        _ = channel.changeStreamCount(by: 1)
        do {
            try await join(channel)
        } catch {
            channel.removeHandler(handler)
            _ = channel.changeStreamCount(by: -1)
            continuation.finish()
            throw error
        }
        continuation.onTermination = { [weak self] _ in
            channel.removeHandler(handler)
            guard channel.changeStreamCount(by: -1) == 0, !channel.isWanted, let self else { return }
            Task { try? await self.leave(channel) }
        }
        return stream
    }
}

import Dispatch
import Foundation
import GRDB
import SelfDBRuntime

/// Where observation callbacks run (one serial queue per client, so they arrive in order
/// and never on the main queue, which a Linux process may not be running), and the live
/// observations `close()` stops.
final class ObservationQueue: Sendable {
    let queue = DispatchQueue(label: "synchro.observations")
    private let live = Locked<[UUID: AnyDatabaseCancellable]>([:])

    func keep(_ cancellable: AnyDatabaseCancellable) -> SynchroCancellable {
        let id = UUID()
        live.withLock { $0[id] = cancellable }
        return SynchroCancellable { [weak self] in
            self?.live.withLock { $0.removeValue(forKey: id) }?.cancel()
        }
    }

    func cancelAll() {
        let all = live.withLock { live in
            defer { live.removeAll() }
            return Array(live.values)
        }
        for cancellable in all { cancellable.cancel() }
    }
}

extension SynchroClient {
    /// Calls `callback` after every committed transaction that changed one of `tables` —
    /// the app's writes and the rows sync brings in alike.
    public func onChange(tables: [String], callback: @escaping @Sendable () -> Void) -> SynchroCancellable {
        let observation = DatabaseRegionObservation(tracking: tables.map { Table($0) })
        let queue = observations.queue
        let cancellable = observation.start(in: database, onError: { _ in }) { _ in
            queue.async { callback() }
        }
        return observations.keep(cancellable)
    }

    /// Calls `callback` at once with the rows of `sql`, then again whenever one of `tables`
    /// changes the result (GRDB's `ValueObservation`; with no tables, whatever the query
    /// reads). Callbacks arrive in order on a queue of the client's.
    public func watch(
        _ sql: String,
        params: [(any DatabaseValueConvertible)?] = [],
        tables: [String],
        callback: @escaping @Sendable ([Row]) -> Void
    ) -> SynchroCancellable {
        let arguments = StatementArguments(params)
        let fetch: @Sendable (Database) throws -> FetchedRows = { db in
            FetchedRows(rows: try Row.fetchAll(db, sql: sql, arguments: arguments))
        }
        // Without WAL snapshots (Linux) GRDB may fetch the first value twice; an unchanged
        // result is not a change.
        let observation =
            (tables.isEmpty
            ? ValueObservation.tracking(fetch)
            : ValueObservation.tracking(regions: tables.map { Table($0) }, fetch: fetch)).removeDuplicates()
        let cancellable = observation.start(
            in: database,
            scheduling: .async(onQueue: observations.queue),
            onError: { _ in },
            onChange: { fetched in callback(fetched.rows) }
        )
        return observations.keep(cancellable)
    }
}

/// Rows handed from the observation's database access to the callback queue. `Row` is not
/// `Sendable` because a row read in place from a cursor changes as the cursor advances;
/// `Row.fetchAll` returns copies that nothing else holds or changes.
struct FetchedRows: @unchecked Sendable, Equatable {
    let rows: [Row]
}

import SelfDB

extension CacheChange where Row: TableModel {
    /// The cache's view of a realtime change (the old row of an update is not needed: the
    /// cache keeps the previous state itself).
    public init(_ change: TableChange<Row>) {
        switch change {
        case .insert(let row): self = .insert(row)
        case .update(let row, _): self = .update(row)
        case .delete(let row): self = .delete(row)
        }
    }
}

extension SelfDBCache {
    /// Keeps `Row`'s cached items and views in step with changes made elsewhere, as the
    /// server reports them on `selfdb.realtime`, until the calling task is cancelled.
    ///
    /// ```swift
    /// try await selfdb.realtime.connect()
    /// let live = Task { try await cache.followRealtime(Todo.self, insertingInto: ["open"]) }
    /// ```
    ///
    /// The table must be realtime-enabled (a table model with `realtime: true` is created
    /// that way). Items with a pending local mutation are left alone, as with
    /// ``apply(change:insertingInto:at:)``.
    ///
    /// Reconnects and re-joins are the realtime client's business, but the changes made while
    /// the channel was not joined are not delivered (the server does not replay them): after
    /// every rejoin (`TableFeedEvent.mayHaveMissedChanges`), the live fetchers of `Row`
    /// reload from the server, as ``reload(_:except:)`` asks, so what they show equals the
    /// server's rows again without app code. A view with no live fetcher is fetched when a
    /// fetcher next shows it, as its strategy says.
    ///
    /// - Throws: the realtime client's errors (`RealtimeError.notConnected` before `connect()`,
    ///   a refused join), or a cache error while applying a change; `CacheError.invalidArgument`
    ///   for a cache opened without a client.
    public func followRealtime<Row: TableModel>(_ type: Row.Type, insertingInto views: [String] = [], at position: InsertPosition = .prepend) async throws {
        let feed = try await client(for: Row.self).realtime.changeFeed(Row.self)
        for await event in feed {
            switch event {
            case .change(let change):
                try apply(change: CacheChange(change), insertingInto: views, at: position)
            case .mayHaveMissedChanges:
                reload(Row.self)
            }
        }
    }
}

import SelfDBRuntime

/// An element of ``RealtimeClient/changeFeed(_:)``: a change, or word that the channel was
/// joined again after a drop and changes made meanwhile were not delivered.
public enum TableFeedEvent<Row: TableModel>: Sendable, Hashable {
    /// An insert, update or delete, as ``RealtimeClient/changes(_:)`` yields it.
    case change(TableChange<Row>)
    /// The channel is joined again after it was not (a reconnect, the server ending the
    /// channel, an unsubscribe and subscribe): changes made in between were not delivered and
    /// never will be (the server does not replay them). Fetch what the app shows again. Every
    /// change after this element was made after the new join.
    case mayHaveMissedChanges

    /// The change, for a ``change(_:)`` element.
    public var change: TableChange<Row>? {
        if case .change(let change) = self { change } else { nil }
    }
}

/// The change events a table channel delivers, and `.all` to handle every one.
public enum RealtimeEvent: String, Sendable, Hashable, CaseIterable {
    /// A row was inserted.
    case insert
    /// A row was updated.
    case update
    /// A row was deleted.
    case delete
    /// Any of the above (only for registering handlers; a payload's event is never `.all`).
    case all

    /// Whether a handler registered for `self` wants `event`.
    func matches(_ event: RealtimeEvent) -> Bool {
        self == .all || self == event
    }
}

import SelfDB

/// How an optimistic mutation ended for its caller.
public enum MutationOutcome<Row: CacheableModel>: Sendable, Hashable {
    /// The server accepted it; the row as stored (`nil` for a delete).
    case confirmed(Row?)
    /// The server could not be reached: the change is applied to the cache, stored durably
    /// and will be sent by `SelfDBCache.synchronize()`.
    case pending

    /// Whether the server has it already.
    public var isConfirmed: Bool {
        if case .confirmed = self { true } else { false }
    }
}

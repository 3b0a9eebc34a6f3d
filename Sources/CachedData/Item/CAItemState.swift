import SelfDBCache

/// Where a cached item stands with the server, for interface feedback (dim a row being
/// deleted, show a spinner on one being saved).
///
/// `Codable` and `Hashable` so a model can keep it as a stored property and still have its
/// conformances synthesized (the README's `Post` does).
public enum CAItemState: String, Codable, Hashable, Sendable, CaseIterable {
    /// In step with the server.
    case normal
    /// Created here; the server has not confirmed the insert yet.
    case inserting
    /// Changed here; the server has not confirmed the update yet.
    case updating
    /// Deleted here; the item stays listed until the server confirms the delete.
    case deleting

    init(_ state: ItemState) {
        switch state {
        case .normal: self = .normal
        case .inserting: self = .inserting
        case .updating: self = .updating
        case .deleting: self = .deleting
        }
    }
}

import SelfDBCache

extension CAViewAction where Kind == CAInsertViewKind {
    /// The engine's position, or nil for no view.
    var position: InsertPosition? {
        switch kind {
        case .prepend: .prepend
        case .append: .append
        case .insertBefore(let id): .before(id: id)
        case .insertAfter(let id): .after(id: id)
        case .noAction: nil
        }
    }
}

import SelfDBCache

/// Where an inserted item shows: `.action(.prepend, viewId: "feed")`.
public struct CAInsertViewAction: Sendable, Hashable {
    /// The place in the view.
    public enum Kind: Sendable, Hashable {
        /// Before every item.
        case prepend
        /// After every item.
        case append
        /// Just before the item with this id (at the end if it is not in the view).
        case insertBefore(id: String)
        /// Just after the item with this id (at the end if it is not in the view).
        case insertAfter(id: String)
        /// In no view: the item is cached and sent, and shows where a later fetch lists it.
        case noAction
    }

    /// The view; nil places the item in every list view of its type a live fetcher shows.
    public let viewId: String?
    /// The place.
    public let kind: Kind

    init(_ kind: Kind, viewId: String?) {
        self.kind = kind
        self.viewId = viewId
    }

    /// Places the item per `kind` in view `viewId` (every live list view of the type if nil).
    public static func action(_ kind: Kind, viewId: String? = nil) -> Self {
        Self(kind, viewId: viewId)
    }

    /// In no view.
    public static var noAction: Self { Self(.noAction, viewId: nil) }

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

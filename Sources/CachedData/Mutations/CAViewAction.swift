/// What a mutation does to views: `.action(.prepend, viewId: "feed")` for an insert
/// (``CAInsertViewAction``), `.action(.refresh)` for an update (``CAUpdateViewAction``).
public struct CAViewAction<Kind: CAViewActionKind>: Sendable, Hashable {
    /// The view; nil for every list view of the item's type a live fetcher shows.
    public let viewId: String?
    /// What happens.
    public let kind: Kind

    init(_ kind: Kind, viewId: String?) {
        self.kind = kind
        self.viewId = viewId
    }

    /// `kind` for the view `viewId` (every live list view of the type if nil).
    public static func action(_ kind: Kind, viewId: String? = nil) -> Self {
        Self(kind, viewId: viewId)
    }

    /// Nothing besides the mutation itself.
    public static var noAction: Self { Self(.noAction, viewId: nil) }
}

/// The kinds of a ``CAViewAction``; each has a way to do nothing.
public protocol CAViewActionKind: Sendable, Hashable {
    /// Nothing besides the mutation itself.
    static var noAction: Self { get }
}

/// Where an inserted item shows.
public typealias CAInsertViewAction = CAViewAction<CAInsertViewKind>
/// What an update does to views besides changing the item everywhere it is listed.
public typealias CAUpdateViewAction = CAViewAction<CAUpdateViewKind>

/// The place of an inserted item in its view.
public enum CAInsertViewKind: CAViewActionKind {
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

/// What happens to views once the server confirmed an update.
public enum CAUpdateViewKind: CAViewActionKind {
    /// Refetch views from the server (the change may move the item in or out of them): the
    /// view `viewId`, or every view of the type a live fetcher shows if nil.
    case refresh
    /// Nothing more.
    case noAction
}

/// What an update does to views besides changing the item everywhere it is listed:
/// `.action(.refresh, viewId: "feed")`.
public struct CAUpdateViewAction: Sendable, Hashable {
    /// What happens once the server confirmed the update.
    public enum Kind: Sendable, Hashable {
        /// Refetch views from the server (the change may move the item in or out of them):
        /// the view `viewId`, or every view of the type a live fetcher shows if nil.
        case refresh
        /// Nothing more.
        case noAction
    }

    /// The view to refresh; nil for every live view of the type.
    public let viewId: String?
    /// What happens.
    public let kind: Kind

    init(_ kind: Kind, viewId: String?) {
        self.kind = kind
        self.viewId = viewId
    }

    /// `kind` for view `viewId` (every live view of the type if nil).
    public static func action(_ kind: Kind, viewId: String? = nil) -> Self {
        Self(kind, viewId: viewId)
    }

    /// Nothing besides the update itself.
    public static var noAction: Self { Self(.noAction, viewId: nil) }
}

/// Where an inserted item goes in its view.
public enum InsertPosition: Sendable, Hashable {
    /// Before every item.
    case prepend
    /// After every item.
    case append
    /// Just before the item with this id (appended if it is not in the view).
    case before(id: String)
    /// Just after the item with this id (appended if it is not in the view).
    case after(id: String)
}

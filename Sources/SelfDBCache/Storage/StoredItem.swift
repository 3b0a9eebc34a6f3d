import Foundation

/// An item as the storage keeps it: its id within its type, its encoded row, its state.
///
/// The body is in the cache's binary format (`ItemFormat`), or JSON text in files written by
/// earlier versions; the column keeps its old name, `json`.
struct StoredItem: Sendable, Hashable {
    var id: String
    var body: Data
    var state: ItemState
}

/// How far a view has been paged.
struct ViewPage: Sendable, Hashable {
    /// The next page to fetch (1-based).
    var nextPage: Int
    /// Whether the server has more.
    var hasNext: Bool
    /// For cursor-paged views: the cursor of the next page.
    var nextCursor: String? = nil
}

/// A view of a type: the key eviction and change notification work with.
struct ViewKey: Sendable, Hashable {
    var typeName: String
    var view: String
}

/// The kinds of mutation the queue stores.
enum MutationKind: String, Sendable, Hashable {
    case insert, update, delete

    /// The state an item shows while this mutation is pending.
    var pendingState: ItemState {
        switch self {
        case .insert: .inserting
        case .update: .updating
        case .delete: .deleting
        }
    }
}

/// A mutation waiting in the durable queue.
struct PendingMutation: Sendable, Hashable {
    /// Queue order (SQLite `AUTOINCREMENT`, so never reused).
    var sequence: Int64
    var typeName: String
    var itemId: String
    var kind: MutationKind
    /// The row to send (encoded as a `StoredItem` body).
    var body: Data
    /// Whether a send was started: the server may have it already.
    var attempted: Bool
}

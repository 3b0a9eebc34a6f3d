import Foundation

/// What the cache needs from its database, one transaction per method.
///
/// A protocol so the fetchers and the mutation queue do not depend on how SQL is run; the
/// implementation is `SQLiteCacheStorage`, on `SelfDBStore`.
protocol CacheStorage: UploadStorage {
    /// The items of a view, in view order.
    func viewItems(type: String, view: String) throws -> [StoredItem]
    /// The items of a view, in view order, each handed to `transform` with its body in place
    /// (valid only during the call): reading a view decodes without copying bodies.
    func viewItems<T>(type: String, view: String, _ transform: (_ id: String, _ body: UnsafeRawBufferPointer, _ state: ItemState) throws -> T) throws -> [T]
    /// One item.
    func item(type: String, id: String) throws -> StoredItem?
    /// How far a view has been paged, if it was ever fetched.
    func viewPage(type: String, view: String) throws -> ViewPage?
    /// Writes a page of server rows into a view: `replacing` starts the view over (page 1),
    /// otherwise the rows are appended, skipping ids the view has. Items with a pending
    /// mutation keep their local row and their place.
    func writePage(type: String, view: String, items: [StoredItem], replacing: Bool, page: ViewPage, now: Date) throws
    /// Applies a mutation to the cache and queues it, atomically, placing the item in `views`
    /// at `position`. Returns its sequence.
    func enqueue(type: String, kind: MutationKind, item: StoredItem, insertInto views: [String], at position: InsertPosition, now: Date) throws -> Int64
    /// The oldest queued mutation, without reading the rest of the queue.
    func nextPendingMutation() throws -> PendingMutation?
    /// How many mutations are queued, without reading them.
    func pendingMutationCount() throws -> Int
    /// Records whether the server may have the mutation: `true` before each send starts, back
    /// to `false` when a send certainly did not reach the server and none before it may have.
    func markAttempted(_ sequence: Int64, _ attempted: Bool) throws
    /// The server accepted the mutation; `server` is the item it returned, whose key may
    /// differ from the local one for an insert (the item then takes the server's key).
    func confirm(_ mutation: PendingMutation, server: StoredItem?) throws
    /// The server refused the mutation: restores the item and its view places as they were
    /// before it, dropping later mutations of the same item (they were built on it).
    func rollback(_ mutation: PendingMutation) throws
    /// Folds a change made elsewhere into the cache; ignored for items with a pending
    /// mutation. Returns whether anything changed.
    func applyRemote(type: String, kind: MutationKind, item: StoredItem, insertInto views: [String], at position: InsertPosition, now: Date) throws -> Bool
    /// Drops idle views per the policy, then items no view holds. Returns the views dropped.
    func evict(_ policy: EvictionPolicy, inUse: Set<ViewKey>, now: Date) throws -> Int
}

/// The upload queue's part of the cache's database (`cache_uploads`), one transaction per
/// method.
protocol UploadStorage: Sendable {
    /// Records a queued upload whose file the cache keeps at `localFile`.
    func enqueueUpload(_ upload: QueuedUpload, contentType: String?, localFile: String, now: Date) throws
    /// The oldest upload still pending.
    func nextPendingUpload() throws -> UploadRecord?
    /// Every upload recorded, oldest first.
    func uploads() throws -> [UploadRecord]
    /// How many uploads are pending.
    func pendingUploadCount() throws -> Int
    /// The server's file ids that uploads of this cache became.
    func claimedFileIDs() throws -> Set<String>
    /// Before a send: it may reach the server, started at `started`; after one that certainly
    /// did not: `false`.
    func markUploadAttempted(_ sequence: Int64, _ attempted: Bool, at started: Date?) throws
    /// The server holds the upload as `fileID` at `path`.
    func finishUpload(_ sequence: Int64, fileID: UUID, path: String) throws
    /// The server refused the upload.
    func failUpload(_ sequence: Int64, reason: String) throws
}

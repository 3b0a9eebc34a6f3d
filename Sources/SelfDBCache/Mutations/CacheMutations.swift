import SelfDB

/// How the mutations of a model that is not a table model reach the server: the app's calls
/// of the generated client for its endpoints. Register them with
/// ``SelfDBCache/register(_:mutations:)`` at launch, so that mutations queued in an earlier
/// run can be replayed.
///
/// ```swift
/// await cache.register(BucketResponse.self, mutations: CacheMutations(
///     insert: { try await selfdb.storage.buckets.create(payload: BucketCreate(name: $0.name, public: $0.public)) },
///     update: { try await selfdb.storage.buckets.update($0.id, payload: BucketUpdate(public: $0.public)) },
///     delete: { try await selfdb.storage.buckets.delete($0.id) }))
/// ```
///
/// A call that throws a transient error (no network, 503, signed out) leaves the mutation
/// queued; any other error is a refusal, and the cache is rolled back. A delete that throws
/// `SelfDBError.notFound` is done (the item is not there) unless `find` finds it still there. An insert whose earlier send may
/// have reached the server (its answer lost, or the app stopped mid-send) is looked for with
/// `find` before it is sent again: give one when a second insert would store a second item.
public struct CacheMutations<Item: CacheableModel>: Sendable {
    /// Creates the item; returns it as the server stored it (nil keeps the local copy). When
    /// the server assigns the key, the cached item, its places in views and later queued
    /// mutations of it take the server's key.
    public var insert: (@Sendable (Item) async throws -> Item?)?
    /// Changes the item; returns it as the server stored it (nil keeps the local copy).
    public var update: (@Sendable (Item) async throws -> Item?)?
    /// Deletes the item.
    public var delete: (@Sendable (Item) async throws -> Void)?
    /// Looks for an item on the server: an insert that may have landed unanswered (its answer
    /// lost, or the app stopped mid-send) is sent again only if this finds nothing, and a
    /// delete answered 404 is a refusal only if this still finds the item. Without it, such an
    /// insert is sent again and such a delete is done.
    public var find: (@Sendable (Item) async throws -> Item?)?

    /// Mutations through these calls; leave out the ones the type does not support (a
    /// mutation of that kind is then refused with `CacheError.invalidArgument`).
    public init(
        insert: (@Sendable (Item) async throws -> Item?)? = nil,
        update: (@Sendable (Item) async throws -> Item?)? = nil,
        delete: (@Sendable (Item) async throws -> Void)? = nil,
        find: (@Sendable (Item) async throws -> Item?)? = nil
    ) {
        self.insert = insert
        self.update = update
        self.delete = delete
        self.find = find
    }

    /// Which kinds are supported.
    func supports(_ kind: MutationKind) -> Bool {
        switch kind {
        case .insert: insert != nil
        case .update: update != nil
        case .delete: delete != nil
        }
    }
}

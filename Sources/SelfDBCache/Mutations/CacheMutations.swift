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
/// queued; any other error is a refusal, and the cache is rolled back.
public struct CacheMutations<Item: CacheableModel>: Sendable {
    /// Creates the item; returns it as the server stored it (nil keeps the local copy). When
    /// the server assigns the key, the cached item, its places in views and later queued
    /// mutations of it take the server's key.
    public var insert: (@Sendable (Item) async throws -> Item?)?
    /// Changes the item; returns it as the server stored it (nil keeps the local copy).
    public var update: (@Sendable (Item) async throws -> Item?)?
    /// Deletes the item.
    public var delete: (@Sendable (Item) async throws -> Void)?
    /// Looks for an item whose insert was sent before the app stopped, to replay the insert
    /// only if the server does not have it. Without it, such an insert is sent again.
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

import Foundation
import SelfDB

/// Sends the queued mutations of one type. Built per type when the type is registered, so
/// the queue (which stores encoded items, not closures) can be replayed after a restart.
struct ItemSender: Sendable {
    /// Sends the mutation and returns the item the server stored (`nil` for a delete, or
    /// when the server answered without one).
    let send: @Sendable (PendingMutation) async throws -> StoredItem?
    /// Whether mutations of this kind can be sent at all.
    var supports: @Sendable (MutationKind) -> Bool = { _ in true }

    /// The queued item, decoded; a queue entry that no longer decodes cannot be sent.
    static func decode<Item: CacheableModel>(_ mutation: PendingMutation, as type: Item.Type) throws -> Item {
        do {
            return try ItemCoding.decodeRow(mutation.body, as: Item.self)
        } catch {
            throw SelfDBError.invalidArgument("the queued \(Item.self) item cannot be decoded: \(error)")
        }
    }

    /// A sender calling the app's endpoint calls.
    static func make<Item: CacheableModel>(_ mutations: CacheMutations<Item>) -> ItemSender {
        ItemSender(
            send: { mutation in
                let item = try decode(mutation, as: Item.self)
                switch mutation.kind {
                case .insert:
                    guard let insert = mutations.insert else { throw missing("insert", Item.self) }
                    if mutation.attempted, let find = mutations.find, let existing = try await find(item) {
                        return try ItemCoding.encode(existing)
                    }
                    return try await insert(item).map { try ItemCoding.encode($0) }
                case .update:
                    guard let update = mutations.update else { throw missing("update", Item.self) }
                    return try await update(item).map { try ItemCoding.encode($0) }
                case .delete:
                    guard let delete = mutations.delete else { throw missing("delete", Item.self) }
                    do {
                        try await delete(item)
                    } catch let refusal as SelfDBError {
                        // 404: already so (an earlier send of this delete may have landed
                        // unanswered), unless `find` sees the item still there.
                        guard case .notFound = refusal else { throw refusal }
                        if let find = mutations.find, try await find(item) != nil { throw refusal }
                    }
                    return nil
                }
            },
            supports: mutations.supports
        )
    }

    private static func missing(_ kind: String, _ type: Any.Type) -> SelfDBError {
        .invalidArgument("no \(kind) was registered for \(type); pass one in CacheMutations")
    }
}

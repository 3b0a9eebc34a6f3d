import Foundation
import SelfDB
import SelfDBCache

/// A ``CAMutableItem``'s own calls as the engine's `CacheMutations`, translating how they
/// fail: a transport failure becomes a connection error, which the engine keeps queued; any
/// other error reaches the engine as it was thrown, so it is a refusal and the handler can
/// rethrow the item's own `CAMutationError`.
enum MutationBridge {
    static func mutations<Item: CAMutableItem>(_ type: Item.Type) -> CacheMutations<CacheEntry<Item>> {
        CacheMutations(
            insert: { entry in
                try await send { () async throws(CAMutationError) in try await entry.item.insert() }
                return nil
            },
            update: { entry in
                try await send { () async throws(CAMutationError) in try await entry.item.update() }
                return nil
            },
            delete: { entry in try await send { () async throws(CAMutationError) in try await entry.item.delete() } }
        )
    }

    private static func send(_ call: () async throws(CAMutationError) -> Void) async throws {
        do {
            try await call()
        } catch {
            if error.isTransportFailure, case .caught(let underlying) = error {
                throw SelfDBError.connectionError(underlying)
            }
            throw error
        }
    }

    /// The error a handler throws for the engine's.
    static func handlerError(_ error: any Error) -> CAMutationError {
        if let error = error as? CAMutationError { return error }
        if case .refused(let refusal as CAMutationError)? = error as? CacheError { return refusal }
        return .caught(error)
    }
}

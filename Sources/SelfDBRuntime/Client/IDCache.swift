import Foundation

/// Ids looked up by name (a table's id from its name), so a typed query does not list the
/// tables before every request. Entries are dropped when the id stops working.
public actor IDCache {
    private var ids: [String: UUID] = [:]

    /// Creates an empty cache.
    public init() {}

    /// The id cached for `key`, or the one `lookup` finds (then cached).
    public func id(for key: String, lookup: @Sendable () async throws -> UUID) async throws -> UUID {
        if let id = ids[key] { return id }
        let id = try await lookup()
        ids[key] = id
        return id
    }

    /// Forgets `key` (e.g. after the table was deleted and created again).
    public func forget(_ key: String) {
        ids[key] = nil
    }
}

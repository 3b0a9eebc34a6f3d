import Foundation
import SelfDB

extension ItemSender {
    /// A sender of table rows through the generated table client.
    static func make<Row: TableModel>(_ type: Row.Type, data: SelfDB.Tables.Data) -> ItemSender {
        ItemSender { mutation in
            let row = try decode(mutation, as: Row.self)
            switch mutation.kind {
            case .insert:
                if mutation.attempted, let existing = try await probe(row, data: data) {
                    return existing
                }
                return try ItemCoding.encode(try await data.insert(row))
            case .update:
                return try ItemCoding.encode(try await data.update(row))
            case .delete:
                do {
                    try await data.delete(row)
                } catch SelfDBError.notFound where mutation.attempted {
                    // The first attempt reached the server before the app stopped.
                }
                return nil
            }
        }
    }

    /// An insert that was sent before may have been stored: SelfDB rows have no unique
    /// key, so a second POST would duplicate it. Writing the same values by primary key
    /// tells: the row comes back if it exists, 404 if it does not.
    private static func probe<Row: TableModel>(_ row: Row, data: SelfDB.Tables.Data) async throws -> StoredItem? {
        do {
            return try ItemCoding.encode(try await data.update(row))
        } catch SelfDBError.notFound {
            return nil
        } catch SelfDBError.badRequest {
            // A table without `user_id` cannot be probed this way; insert as for a first send.
            return nil
        }
    }
}

import Foundation
import SelfDB

/// Sends the queued mutations of one table model through the generated client. Built per
/// type when the type is registered, so the queue (which stores JSON) can be replayed
/// after a restart.
struct RowSender: Sendable {
    /// Sends the mutation and returns the row the server stored (`nil` for a delete).
    let send: @Sendable (PendingMutation) async throws -> String?

    static func make<Row: TableModel>(_ type: Row.Type, data: SelfDB.Tables.Data) -> RowSender {
        RowSender { mutation in
            let row: Row
            do {
                row = try JSONCoding.makeDecoder().decode(Row.self, from: Data(mutation.json.utf8))
            } catch {
                throw SelfDBError.invalidArgument("the queued \(Row.self) row cannot be decoded: \(error)")
            }
            switch mutation.kind {
            case .insert:
                if mutation.attempted, let existing = try await probe(row, data: data) {
                    return existing
                }
                return try ItemCoding.encode(try await data.insert(row)).json
            case .update:
                return try ItemCoding.encode(try await data.update(row)).json
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
    private static func probe<Row: TableModel>(_ row: Row, data: SelfDB.Tables.Data) async throws -> String? {
        do {
            return try ItemCoding.encode(try await data.update(row)).json
        } catch SelfDBError.notFound {
            return nil
        } catch SelfDBError.badRequest {
            // A table without `user_id` cannot be probed this way; insert as for a first send.
            return nil
        }
    }
}

import Foundation
import SelfDB

extension ItemSender {
    /// A sender of table rows through the generated table client.
    ///
    /// Each kind is settled by what SelfDB does, not guessed:
    /// - an insert that may have reached the server before (`mutation.attempted`: a send that
    ///   ended without an answer, or a crash mid-send) is looked for first, and sent again only
    ///   if the server does not have it: SelfDB rows have no unique key, so a second POST would
    ///   store the row twice;
    /// - an update is sent again as it is: SelfDB's PATCH sets the columns it names to absolute
    ///   values (`UPDATE … SET "col" = value`), so a second send changes nothing the first did
    ///   not (a write made elsewhere in between is overwritten, as by any last write);
    /// - a delete answered 404 is done when the row is not there: this mutation's earlier send
    ///   deleted it (its answer lost, or the request sent again by the retry policy), or
    ///   something else did. SelfDB also answers 404 for a row of another user (never 403), so
    ///   the table is read: a row still there was refused, and the cache is rolled back.
    static func make<Row: TableModel>(_ type: Row.Type, data: SelfDB.Tables.Data) -> ItemSender {
        ItemSender { mutation in
            let row = try decode(mutation, as: Row.self)
            switch mutation.kind {
            case .insert:
                if mutation.attempted, let existing = try await data.stored(row) {
                    return try ItemCoding.encode(existing)
                }
                return try ItemCoding.encode(try await data.insert(row))
            case .update:
                return try ItemCoding.encode(try await data.update(row))
            case .delete:
                do {
                    try await data.delete(row)
                } catch let refusal as SelfDBError {
                    guard case .notFound = refusal else { throw refusal }
                    if try await data.read(row) != nil { throw refusal }
                    // Already so.
                }
                return nil
            }
        }
    }
}

import Foundation
import SelfDBRuntime

extension SelfDB.Tables.Data {
    /// The row with `row`'s primary key as the server holds it now, or nil if the server has
    /// none that this user may change: what settles a write whose outcome is unknown
    /// (`SelfDBError.outcomeIsUnknown`) before it is sent again. SelfDB rows have no unique
    /// key, so an insert sent twice is stored twice.
    ///
    /// The server is asked to set the key column to its own value (`PATCH … {"id": id}`): the
    /// row comes back unchanged if it exists, 404 if it does not (or is another user's: SelfDB
    /// lets a user change only rows whose `user_id` is theirs, and says 404 for the others).
    /// On a table without `user_id`, where SelfDB lets only an admin change a row (400 for
    /// anyone else), the row is looked for as ``read(_:)`` does.
    public func stored<Row: TableModel>(_ row: Row) async throws -> Row? {
        let (key, id, rowId) = try Self.key(of: row)
        do {
            let response = try await updateRow(try await tableId(of: Row.self), rowId: rowId, updates: [key: id], idColumn: key)
            return try RowCoding.decode(response.data)
        } catch SelfDBError.notFound {
            return nil
        } catch SelfDBError.badRequest {
            return try await read(row)
        }
    }

    /// The row with `row`'s primary key among the table's rows this user may read (every row
    /// of a public table, and of a private one for any signed-in user), or nil: found without
    /// writing, by a search for one of its text values when it has one (SelfDB searches text
    /// columns with `ILIKE '%…%'`, so the row is among the results unless that value changed
    /// since), else page by page.
    public func read<Row: TableModel>(_ row: Row) async throws -> Row? {
        let (key, id, _) = try Self.key(of: row)
        let tableId = try await tableId(of: Row.self)
        let text = Self.searchableText(of: try RowCoding.encode(row), columns: Row.columns)
        var page = 1
        while true {
            let response = try await fetch(tableId, page: page, pageSize: 1000, sortBy: nil, sortOrder: nil, search: text)
            if let match = response.data.first(where: { Self.sameKey($0[key], id) }) {
                return try RowCoding.decode(match)
            }
            guard page * 1000 < response.total, !response.data.isEmpty else { return nil }
            page += 1
        }
    }

    /// The key column of `Row`, `row`'s value in it, and that value as a path segment.
    private static func key<Row: TableModel>(of row: Row) throws -> (column: String, value: JSONValue, path: String) {
        let key = Row.primaryKey.rawValue
        guard let id = try RowCoding.encode(row)[key], let rowId = pathValue(id) else {
            throw SelfDBError.invalidArgument("the row has no value in its primary key column '\(key)'")
        }
        return (key, id, rowId)
    }

    /// Whether two key values are the same key: text compared without case, as PostgreSQL
    /// spells a UUID in lower case and Swift in upper case.
    private static func sameKey(_ stored: JSONValue?, _ key: JSONValue) -> Bool {
        if let stored = stored?.stringValue, let key = key.stringValue { return stored.caseInsensitiveCompare(key) == .orderedSame }
        return stored == key
    }

    /// The longest run of printable ASCII (what SelfDB's search takes, up to 100 characters)
    /// in the row's text columns, or nil when there is none: SelfDB searches text columns
    /// only, with `ILIKE '%…%'`, so the row is among the results.
    static func searchableText<Column>(of values: [String: JSONValue], columns: [TableColumnDefinition<Column>]) -> String? {
        var best = ""
        for column in columns where [.text, .varchar, .string].contains(column.type) {
            guard let text = values[column.name]?.stringValue else { continue }
            for run in text.split(whereSeparator: { !($0.isASCII && ($0.asciiValue ?? 0) >= 0x20 && ($0.asciiValue ?? 0) <= 0x7E) }) {
                let candidate = String(run.prefix(100))
                if candidate.trimmingCharacters(in: .whitespaces).count > best.trimmingCharacters(in: .whitespaces).count { best = candidate }
            }
        }
        return best.trimmingCharacters(in: .whitespaces).isEmpty ? nil : best
    }
}

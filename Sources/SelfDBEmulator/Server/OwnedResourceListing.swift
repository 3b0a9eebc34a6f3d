import EmulatorSupport
import GRDB
import Hummingbird

/// Count and list for the resources that are public or owned (tables, buckets): the same
/// visibility rules, search columns and paging for both, so the two cannot drift apart.
///
/// SelfDB v0.0.5 applies two rules here, and the emulator keeps both: a list shows a signed-in
/// caller every record (a private one only needs a user, as reading it does), while a count
/// counts only the public records and the caller's own.
enum OwnedResourceListing {
    /// Which records a request may see.
    enum Scope {
        /// `GET …/`: public records to anonymous callers, every record to a signed-in one.
        case list
        /// `GET …/count`: public records, plus the caller's own.
        case count
    }

    /// `WHERE` clause (possibly empty) for what `user` may see in `scope`, optionally narrowed
    /// by `search` over name and description.
    static func visibility(_ user: UserRecord?, scope: Scope, search: String?) -> (sql: String, arguments: StatementArguments) {
        var conditions: [String] = []
        var arguments: StatementArguments = []
        switch (scope, user) {
        case (_, nil):
            conditions.append("public = 1")
        case (.count, let user?):
            conditions.append("(public = 1 OR owner_id = ?)")
            arguments += [user.id]
        case (.list, _?):
            break
        }
        if let search {
            let pattern = Listing.likePattern(search)
            conditions.append("(name LIKE ? ESCAPE '\\' OR description LIKE ? ESCAPE '\\')")
            arguments += [pattern, pattern]
        }
        guard !conditions.isEmpty else { return ("", arguments) }
        return ("WHERE " + conditions.joined(separator: " AND "), arguments)
    }

    /// `GET …/count`: a bare integer.
    static func count(_ request: APIRequest, _ services: EmulatorServices, table: String) async throws -> Response {
        var query = request.query
        try query.rejectUnknown(allowed: ["search"])
        let search = query.search()
        try query.validate()
        let user = try await services.authenticator.optionalUser(request)
        let filter = visibility(user, scope: .count, search: search)
        let total = try await services.database.pool.read { db in
            try Int64.fetchOne(db, sql: "SELECT COUNT(*) FROM \(table) \(filter.sql)", arguments: filter.arguments)
        }
        return .json(.int(total ?? 0))
    }

    /// `GET …/`: a page of records, each rendered by `render`.
    static func list(_ request: APIRequest, _ services: EmulatorServices, table: String, render: @escaping @Sendable (Row, Database) throws -> JSONValue) async throws -> Response {
        let listing = try Listing.read(request, sortable: ["created_at", "updated_at", "name"])
        let user = try await services.authenticator.optionalUser(request)
        let filter = visibility(user, scope: .list, search: listing.search)
        let records = try await services.database.pool.read { db in
            try Row.fetchAll(
                db,
                sql: "SELECT * FROM \(table) \(filter.sql) \(listing.orderClause) LIMIT ? OFFSET ?",
                arguments: filter.arguments + [listing.limit, listing.skip]
            ).map { try render($0, db) }
        }
        return .json(.array(records))
    }
}

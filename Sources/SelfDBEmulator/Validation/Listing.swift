import EmulatorSupport

/// The paging, search and sort parameters the list endpoints share.
struct Listing: Sendable {
    var skip: Int64
    var limit: Int64
    var search: String?
    var sortBy: String
    var descending: Bool

    /// Reads `skip`, `limit`, `search`, `sort_by`, `sort_order` after rejecting unknown
    /// parameters, as SelfDB's (S) list endpoints do.
    static func read(_ request: APIRequest, sortable: [String], extra: Set<String> = []) throws(APIError) -> Listing {
        var query = request.query
        try query.rejectUnknown(allowed: Set(["skip", "limit", "search", "sort_by", "sort_order"]).union(extra))
        let listing = Listing(
            skip: query.int("skip", default: 0, minimum: 0, maximum: 2_147_483_647),
            limit: query.int("limit", default: 100, minimum: 1, maximum: 100),
            search: query.search(),
            sortBy: query.literal("sort_by", allowed: sortable, default: "created_at"),
            descending: query.literal("sort_order", allowed: ["asc", "desc"], default: "desc") == "desc"
        )
        try query.validate()
        return listing
    }

    /// `ORDER BY` for a whitelisted column (never user text), with insertion order as tie-break.
    var orderClause: String {
        let direction = descending ? "DESC" : "ASC"
        return "ORDER BY \(SQLIdentifier.quote(sortBy)) \(direction), rowid \(direction)"
    }

    /// A `LIKE` pattern matching `search` anywhere, with LIKE's wildcards taken literally.
    static func likePattern(_ search: String) -> String {
        var escaped = ""
        for character in search {
            if character == "%" || character == "_" || character == "\\" {
                escaped.append("\\")
            }
            escaped.append(character)
        }
        return "%\(escaped)%"
    }
}

import EmulatorSupport
import GRDB

/// The `require_admin` dependency each of SelfDB's admin routers declares, with its own words:
/// 401 without a user, 400 for an inactive one, 403 with the router's detail for anyone who
/// is not an ADMIN.
struct AdminOnly: Sendable {
    /// The 403 detail, which differs per router.
    let detail: String

    static let schema = AdminOnly(detail: "Admin access required for schema visualization")
    static let functions = AdminOnly(detail: "Admin access required for function management")
    static let webhooks = AdminOnly(detail: "Admin access required for webhook management")
    static let sql = AdminOnly(detail: "Admin access required for SQL operations")
    static let backups = AdminOnly(detail: "Admin access required")

    /// The admin making the request.
    func require(_ request: APIRequest, _ services: EmulatorServices) async throws -> UserRecord {
        let user = try await services.authenticator.requireUser(request)
        guard user.isAdmin else { throw APIError.forbidden(detail) }
        return user
    }
}

/// `limit` and `offset` of the admin lists, bounds per endpoint.
struct PageQuery: Sendable {
    var limit: Int64
    var offset: Int64

    /// Reads both after the dependencies ran, as FastAPI validates an endpoint's own query
    /// parameters last.
    static func read(_ request: APIRequest, defaultLimit: Int64, maximumLimit: Int64) throws(APIError) -> PageQuery {
        var query = request.query
        let page = read(&query, defaultLimit: defaultLimit, maximumLimit: maximumLimit)
        try query.validate()
        return page
    }

    /// Reads both into `query`'s issues, for an endpoint that reports them with others.
    static func read(_ query: inout QueryParameters, defaultLimit: Int64, maximumLimit: Int64) -> PageQuery {
        PageQuery(
            limit: query.int("limit", default: defaultLimit, minimum: 1, maximum: maximumLimit),
            offset: query.int("offset", default: 0, minimum: 0)
        )
    }

    /// This page of `table`'s rows that `filter` keeps (a `WHERE` clause, or nothing), in
    /// `order`, each made into JSON by `item`; and how many rows `filter` keeps in all.
    func items(
        of table: String,
        filter: String = "",
        arguments: StatementArguments = [],
        order: String,
        in db: Database,
        _ item: (Row) -> JSONValue
    ) throws -> (items: [JSONValue], total: Int) {
        let total = try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM \(table) \(filter)", arguments: arguments) ?? 0
        let rows = try Row.fetchAll(db, sql: "SELECT * FROM \(table) \(filter) \(order) LIMIT ? OFFSET ?", arguments: arguments + [limit, offset])
        return (rows.map(item), total)
    }

    /// The `{…, total, limit, offset}` envelope SelfDB wraps every admin page in.
    func envelope(_ name: String, items: [JSONValue], total: Int) -> JSONValue {
        .object(JSONObject([(name, .array(items)), ("total", .int(Int64(total))), ("limit", .int(limit)), ("offset", .int(offset))]))
    }
}

import GRDB

/// Who may see and change a user table.
enum TableAccess {
    static func load(_ id: String, in db: Database) throws -> TableRecord {
        guard let table = try TableRecord.find(id: id, in: db) else { throw APIError.notFound("Table not found") }
        return table
    }

    /// Owner or ADMIN, else 403.
    static func requireOwner(_ table: TableRecord, _ user: UserRecord) throws(APIError) {
        guard table.ownerID == user.id || user.isAdmin else {
            throw APIError.forbidden("You can only modify tables you own")
        }
    }

    /// Public tables are open to all; private ones to any signed-in user, as in SelfDB v0.0.5
    /// ("any authenticated user can read/insert"): only anonymous callers are refused. This
    /// covers reading the table, its rows and inserting a row; changing the table stays with
    /// its owner (``requireOwner(_:_:)``) and changing a row with the row's `user_id`.
    static func requireRead(_ table: TableRecord, _ user: UserRecord?) throws(APIError) {
        if !table.isPublic, user == nil {
            throw APIError.unauthorized("Authentication required to access private tables")
        }
    }
}

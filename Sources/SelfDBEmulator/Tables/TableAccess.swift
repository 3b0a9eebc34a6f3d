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

    /// Public tables are open to all; private ones need their owner (or an ADMIN).
    static func requireRead(_ table: TableRecord, _ user: UserRecord?) throws(APIError) {
        guard !table.isPublic else { return }
        guard let user else { throw APIError.unauthorized("Authentication required to access private tables") }
        guard table.ownerID == user.id || user.isAdmin else {
            throw APIError.forbidden("You do not have access to this table")
        }
    }
}

import EmulatorSupport
import GRDB

/// A row of `_selfdb_buckets`.
struct BucketRecord: Sendable {
    var id: String
    var name: String
    var isPublic: Bool
    var description: String?
    var metadata: JSONValue
    var ownerID: String
    var createdAt: String
    var updatedAt: String

    init(
        id: String,
        name: String,
        isPublic: Bool,
        description: String?,
        metadata: JSONValue,
        ownerID: String,
        createdAt: String,
        updatedAt: String
    ) {
        self.id = id
        self.name = name
        self.isPublic = isPublic
        self.description = description
        self.metadata = metadata
        self.ownerID = ownerID
        self.createdAt = createdAt
        self.updatedAt = updatedAt
    }

    init(row: Row) {
        id = row["id"]
        name = row["name"]
        isPublic = row["public"]
        description = row["description"]
        metadata = (try? JSONParser.parse(row["metadata"] as String)) ?? .object(JSONObject())
        ownerID = row["owner_id"]
        createdAt = row["created_at"]
        updatedAt = row["updated_at"]
    }

    /// BucketResponse, with live file statistics.
    func json(in db: Database) throws -> JSONValue {
        let stats = try Row.fetchOne(
            db,
            sql: "SELECT COUNT(*) AS n, COALESCE(SUM(size), 0) AS total FROM _selfdb_files WHERE bucket_id = ?",
            arguments: [id]
        )
        return .object(
            JSONObject([
                ("id", .string(id)),
                ("name", .string(name)),
                ("public", .bool(isPublic)),
                ("description", .optional(description)),
                ("file_count", .int(stats?["n"] ?? 0)),
                ("total_size", .int(stats?["total"] ?? 0)),
                ("owner_id", .string(ownerID)),
                ("metadata", metadata),
                ("created_at", .string(createdAt)),
                ("updated_at", .string(updatedAt)),
            ])
        )
    }

    func realtimeJSON(in db: Database) throws -> JSONValue {
        guard case .object(var object) = try json(in: db) else { return .null }
        object["created_at"] = .string(Timestamp.realtime(createdAt))
        object["updated_at"] = .string(Timestamp.realtime(updatedAt))
        return .object(object)
    }

    static func find(id: String, in db: Database) throws -> BucketRecord? {
        try Row.fetchOne(db, sql: "SELECT * FROM _selfdb_buckets WHERE id = ?", arguments: [id]).map(BucketRecord.init)
    }

    static func find(name: String, in db: Database) throws -> BucketRecord? {
        try Row.fetchOne(db, sql: "SELECT * FROM _selfdb_buckets WHERE name = ?", arguments: [name]).map(BucketRecord.init)
    }

    func insert(_ db: Database) throws {
        try db.execute(
            sql: """
                INSERT INTO _selfdb_buckets (id, name, public, description, metadata, owner_id, created_at, updated_at)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?)
                """,
            arguments: [id, name, isPublic, description, JSONWriter.string(metadata), ownerID, createdAt, updatedAt]
        )
    }

    func update(_ db: Database) throws {
        try db.execute(
            sql: "UPDATE _selfdb_buckets SET public = ?, description = ?, metadata = ?, updated_at = ? WHERE id = ?",
            arguments: [isPublic, description, JSONWriter.string(metadata), updatedAt, id]
        )
    }

    /// Public buckets are open to all; private ones to any signed-in user, as in SelfDB v0.0.5
    /// ("any authenticated user can access"): only anonymous callers are refused. Changing a
    /// bucket or its files stays with the owner (``requireOwner(_:)``).
    func requireRead(_ user: UserRecord?) throws(APIError) {
        if !isPublic, user == nil {
            throw APIError.unauthorized("Authentication required to access private buckets")
        }
    }

    /// Owner or ADMIN, else 403.
    func requireOwner(_ user: UserRecord) throws(APIError) {
        guard ownerID == user.id || user.isAdmin else { throw APIError.forbidden("You can only modify buckets you own") }
    }

    static func load(_ id: String, in db: Database) throws -> BucketRecord {
        guard let bucket = try find(id: id, in: db) else { throw APIError.notFound("Bucket not found") }
        return bucket
    }
}

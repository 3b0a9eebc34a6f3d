import EmulatorSupport
import GRDB

/// A row of `_selfdb_files`: one stored object.
struct FileRecord: Sendable {
    var id: String
    var bucketID: String
    var name: String
    var path: String
    var size: Int64
    var mimeType: String
    var ownerID: String?
    var metadata: JSONValue
    var blobKey: String
    var createdAt: String
    var updatedAt: String

    init(
        id: String,
        bucketID: String,
        name: String,
        path: String,
        size: Int64,
        mimeType: String,
        ownerID: String?,
        metadata: JSONValue,
        blobKey: String,
        createdAt: String,
        updatedAt: String
    ) {
        self.id = id
        self.bucketID = bucketID
        self.name = name
        self.path = path
        self.size = size
        self.mimeType = mimeType
        self.ownerID = ownerID
        self.metadata = metadata
        self.blobKey = blobKey
        self.createdAt = createdAt
        self.updatedAt = updatedAt
    }

    init(row: Row) {
        id = row["id"]
        bucketID = row["bucket_id"]
        name = row["name"]
        path = row["path"]
        size = row["size"]
        mimeType = row["mime_type"]
        ownerID = row["owner_id"]
        metadata = (try? JSONParser.parse(row["metadata"] as String)) ?? .object(JSONObject())
        blobKey = row["blob_key"]
        createdAt = row["created_at"]
        updatedAt = row["updated_at"]
    }

    /// FileResponse.
    var json: JSONValue {
        .object(
            JSONObject([
                ("id", .string(id)),
                ("bucket_id", .string(bucketID)),
                ("name", .string(name)),
                ("path", .string(path)),
                ("size", .int(size)),
                ("mime_type", .string(mimeType)),
                ("owner_id", .optional(ownerID)),
                ("metadata", metadata),
                // SelfDB v0.0.5 never computes it.
                ("checksum_sha256", .null),
                ("version", 1),
                ("is_latest", true),
                ("deleted_at", .null),
                ("created_at", .string(createdAt)),
                ("updated_at", .string(updatedAt)),
            ])
        )
    }

    var realtimeJSON: JSONValue {
        guard case .object(var object) = json else { return .null }
        object["created_at"] = .string(Timestamp.realtime(createdAt))
        object["updated_at"] = .string(Timestamp.realtime(updatedAt))
        return .object(object)
    }

    static func find(id: String, in db: Database) throws -> FileRecord? {
        try Row.fetchOne(db, sql: "SELECT * FROM _selfdb_files WHERE id = ?", arguments: [id]).map(FileRecord.init)
    }

    static func load(_ id: String, in db: Database) throws -> FileRecord {
        guard let file = try find(id: id, in: db) else { throw APIError.notFound("File not found") }
        return file
    }

    func insert(_ db: Database) throws {
        try db.execute(
            sql: """
                INSERT INTO _selfdb_files (id, bucket_id, name, path, size, mime_type, owner_id, metadata,
                checksum_sha256, blob_key, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, '', ?, ?, ?)
                """,
            arguments: [
                id, bucketID, name, path, size, mimeType, ownerID, JSONWriter.string(metadata), blobKey,
                createdAt, updatedAt,
            ]
        )
    }

    /// The file's owner, its bucket's owner, or an ADMIN may change it.
    func requireOwner(_ user: UserRecord, bucket: BucketRecord) throws(APIError) {
        guard ownerID == user.id || bucket.ownerID == user.id || user.isAdmin else {
            throw APIError.forbidden("You can only modify files you own")
        }
    }
}

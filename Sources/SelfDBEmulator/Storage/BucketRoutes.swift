import EmulatorSupport
import GRDB
import Hummingbird

/// `/storage/buckets/...`.
enum BucketRoutes {
    static func register(in table: inout RouteTable) {
        table.add(.get, "/storage/buckets/count", count)
        table.add(.post, "/storage/buckets/", create)
        table.add(.get, "/storage/buckets/", list)
        table.add(.get, "/storage/buckets/{bucket_id:uuid}", read)
        table.add(.patch, "/storage/buckets/{bucket_id:uuid}", update)
        table.add(.delete, "/storage/buckets/{bucket_id:uuid}", delete)
    }

    static let namePattern = "^[a-z0-9][a-z0-9-]{1,61}[a-z0-9]$"

    static func isValidName(_ name: String) -> Bool {
        let bytes = Array(name.utf8)
        guard (3...63).contains(bytes.count) else { return false }
        let isAlnum: (UInt8) -> Bool = { ($0 >= 97 && $0 <= 122) || ($0 >= 48 && $0 <= 57) }
        guard let first = bytes.first, let last = bytes.last, isAlnum(first), isAlnum(last) else { return false }
        return bytes.allSatisfy { isAlnum($0) || $0 == UInt8(ascii: "-") }
    }

    static func count(_ request: APIRequest, _ services: EmulatorServices) async throws -> Response {
        try await OwnedResourceListing.count(request, services, table: "_selfdb_buckets")
    }

    static func list(_ request: APIRequest, _ services: EmulatorServices) async throws -> Response {
        try await OwnedResourceListing.list(request, services, table: "_selfdb_buckets") { row, db in try BucketRecord(row: row).json(in: db) }
    }

    static func create(_ request: APIRequest, _ services: EmulatorServices) async throws -> Response {
        var body = BodyReader(try request.json())
        // SelfDB checks the length before the pattern: a long name is `string_too_long`.
        let name = body.string("name", required: true, nullable: false, maxLength: 63, pattern: (namePattern, isValidName))
        let isPublic = body.bool("public", nullable: false) ?? false
        let description = body.string("description", maxLength: 500)
        let metadata = body.dictionary("metadata") ?? JSONObject()
        body.forbidExtraFields()
        let user = try await services.authenticator.requireUser(request)
        try body.validate()
        guard let name else { throw APIError.validation(body.issues) }

        let now = Timestamp.now()
        let bucket = BucketRecord(
            id: UUIDText.random(),
            name: name,
            isPublic: isPublic,
            description: description,
            metadata: .object(metadata),
            ownerID: user.id,
            createdAt: now,
            updatedAt: now
        )
        let (json, realtime): (JSONValue, JSONValue?) = try await services.database.pool.write { db in
            if let existing = try BucketRecord.find(name: name, in: db) {
                return (try existing.json(in: db), nil)
            }
            try bucket.insert(db)
            return (try bucket.json(in: db), try bucket.realtimeJSON(in: db))
        }
        if let realtime {
            services.realtime.broadcast(table: "buckets", change: .insert, new: realtime, old: nil)
        }
        return .json(json, status: .created)
    }

    static func read(_ request: APIRequest, _ services: EmulatorServices) async throws -> Response {
        let user = try await services.authenticator.optionalUser(request)
        let id = request.parameter("bucket_id")
        let json = try await services.database.pool.read { db in
            let bucket = try BucketRecord.load(id, in: db)
            try bucket.requireRead(user)
            return try bucket.json(in: db)
        }
        return .json(json)
    }

    static func update(_ request: APIRequest, _ services: EmulatorServices) async throws -> Response {
        var body = BodyReader(try request.json())
        let isPublic = body.bool("public")
        let hasDescription = body.has("description")
        let description = body.string("description", maxLength: 500)
        let metadata = body.dictionary("metadata")
        body.forbidExtraFields()
        let user = try await services.authenticator.requireUser(request)
        try body.validate()

        let id = request.parameter("bucket_id")
        let (json, old, new) = try await services.database.pool.write { db in
            var bucket = try BucketRecord.load(id, in: db)
            try bucket.requireOwner(user)
            let old = try bucket.realtimeJSON(in: db)
            if let isPublic { bucket.isPublic = isPublic }
            if hasDescription { bucket.description = description }
            if let metadata { bucket.metadata = .object(metadata) }
            bucket.updatedAt = Timestamp.now()
            try bucket.update(db)
            return (try bucket.json(in: db), old, try bucket.realtimeJSON(in: db))
        }
        services.realtime.broadcast(table: "buckets", change: .update, new: new, old: old)
        return .json(json)
    }

    static func delete(_ request: APIRequest, _ services: EmulatorServices) async throws -> Response {
        let user = try await services.authenticator.requireUser(request)
        let id = request.parameter("bucket_id")
        let old = try await services.database.pool.write { db in
            let bucket = try BucketRecord.load(id, in: db)
            try bucket.requireOwner(user)
            let old = try bucket.realtimeJSON(in: db)
            try db.execute(sql: "DELETE FROM _selfdb_buckets WHERE id = ?", arguments: [id])
            return old
        }
        services.blobs.removeBucket(id)
        services.realtime.broadcast(table: "buckets", change: .delete, new: nil, old: old)
        return .empty(.noContent)
    }
}

import EmulatorSupport
import Foundation
import GRDB
import Hummingbird

/// `/storage/files/...`: raw-bytes upload, listing, metadata and download.
enum FileRoutes {
    static func register(in table: inout RouteTable) {
        table.add(.get, "/storage/files/stats", stats)
        table.add(.get, "/storage/files/total-count", totalCount)
        table.add(.get, "/storage/files/count", count)
        table.add(.post, "/storage/files/upload", body: .file, upload)
        table.add(.get, "/storage/files/", list)
        table.add(.get, "/storage/files/download/{bucket_name}/{path:path}", download)
        table.add(.get, "/storage/files/{file_id:uuid}", read)
        table.add(.patch, "/storage/files/{file_id:uuid}", update)
        table.add(.delete, "/storage/files/{file_id:uuid}", delete)
    }

    /// The files `stats` and `total-count` count: those in the buckets the bucket count counts
    /// (public ones and the caller's own).
    private static func visibleFiles(_ user: UserRecord?, search: String?) -> (sql: String, arguments: StatementArguments) {
        let buckets = OwnedResourceListing.visibility(user, scope: .count, search: nil)
        var sql = "WHERE bucket_id IN (SELECT id FROM _selfdb_buckets \(buckets.sql))"
        var arguments = buckets.arguments
        if let search {
            sql += " AND (name LIKE ? ESCAPE '\\' OR path LIKE ? ESCAPE '\\')"
            let pattern = Listing.likePattern(search)
            arguments += [pattern, pattern]
        }
        return (sql, arguments)
    }

    static func stats(_ request: APIRequest, _ services: EmulatorServices) async throws -> Response {
        var query = request.query
        try query.rejectUnknown(allowed: ["search"])
        let search = query.search()
        try query.validate()
        let user = try await services.authenticator.optionalUser(request)
        let files = visibleFiles(user, search: search)
        let buckets = OwnedResourceListing.visibility(user, scope: .count, search: nil)
        let json: JSONValue = try await services.database.pool.read { db in
            let row = try Row.fetchOne(
                db,
                sql: "SELECT COUNT(*) AS n, COALESCE(SUM(size), 0) AS total FROM _selfdb_files \(files.sql)",
                arguments: files.arguments
            )
            let bucketCount =
                try Int64.fetchOne(db, sql: "SELECT COUNT(*) FROM _selfdb_buckets \(buckets.sql)", arguments: buckets.arguments)
                ?? 0
            return [
                "total_files": .int(row?["n"] ?? 0), "total_size": .int(row?["total"] ?? 0), "bucket_count": .int(bucketCount),
            ]
        }
        return .json(json)
    }

    static func totalCount(_ request: APIRequest, _ services: EmulatorServices) async throws -> Response {
        var query = request.query
        try query.rejectUnknown(allowed: ["search"])
        let search = query.search()
        try query.validate()
        let user = try await services.authenticator.optionalUser(request)
        let files = visibleFiles(user, search: search)
        let total = try await services.database.pool.read { db in
            try Int64.fetchOne(db, sql: "SELECT COUNT(*) FROM _selfdb_files \(files.sql)", arguments: files.arguments)
        }
        return .json(.int(total ?? 0))
    }

    private static func bucketFilter(_ bucketID: String, search: String?) -> (sql: String, arguments: StatementArguments) {
        guard let search else { return ("WHERE bucket_id = ?", [bucketID]) }
        let pattern = Listing.likePattern(search)
        return ("WHERE bucket_id = ? AND (name LIKE ? ESCAPE '\\' OR path LIKE ? ESCAPE '\\')", [bucketID, pattern, pattern])
    }

    static func count(_ request: APIRequest, _ services: EmulatorServices) async throws -> Response {
        var query = request.query
        try query.rejectUnknown(allowed: ["bucket_id", "search"])
        let bucketID = query.uuid("bucket_id", required: true)
        let search = query.search()
        try query.validate()
        let user = try await services.authenticator.optionalUser(request)
        let filter = bucketFilter(bucketID ?? "", search: search)
        let total = try await services.database.pool.read { db in
            try BucketRecord.load(bucketID ?? "", in: db).requireRead(user)
            return try Int64.fetchOne(db, sql: "SELECT COUNT(*) FROM _selfdb_files \(filter.sql)", arguments: filter.arguments)
        }
        return .json(.int(total ?? 0))
    }

    static func list(_ request: APIRequest, _ services: EmulatorServices) async throws -> Response {
        var query = request.query
        try query.rejectUnknown(allowed: ["bucket_id", "page", "page_size", "search", "sort_by", "sort_order"])
        let bucketID = query.uuid("bucket_id", required: true)
        let page = query.int("page", default: 1, minimum: 1)
        let pageSize = query.int("page_size", default: 100, minimum: 1, maximum: 1000)
        let search = query.search()
        let sortBy = query.literal("sort_by", allowed: ["created_at", "updated_at", "name", "size"], default: "created_at")
        let descending = query.literal("sort_order", allowed: ["asc", "desc"], default: "desc") == "desc"
        try query.validate()
        let user = try await services.authenticator.optionalUser(request)
        let filter = bucketFilter(bucketID ?? "", search: search)
        let direction = descending ? "DESC" : "ASC"
        let json: JSONValue = try await services.database.pool.read { db in
            try BucketRecord.load(bucketID ?? "", in: db).requireRead(user)
            let total = try Int64.fetchOne(db, sql: "SELECT COUNT(*) FROM _selfdb_files \(filter.sql)", arguments: filter.arguments) ?? 0
            let offset = (page - 1).multipliedReportingOverflow(by: pageSize)
            let files = try Row.fetchAll(
                db,
                sql: "SELECT * FROM _selfdb_files \(filter.sql) ORDER BY \(SQLIdentifier.quote(sortBy)) \(direction), rowid \(direction) LIMIT ? OFFSET ?",
                arguments: filter.arguments + [pageSize, offset.overflow ? Int64.max : offset.partialValue]
            ).map { FileRecord(row: $0).json }
            return ["files": .array(files), "total": .int(total), "page": .int(page), "page_size": .int(pageSize)]
        }
        return .json(json)
    }

    static func upload(_ request: APIRequest, _ services: EmulatorServices) async throws -> Response {
        var query = request.query
        try query.rejectUnknown(allowed: ["bucket_id", "filename", "path", "content_type"])
        let bucketID = query.uuid("bucket_id", required: true)
        let filename = query.string("filename", required: true, maxLength: 255)
        let rawPath = query.string("path", maxLength: 1024)
        let contentType = query.string("content_type", maxLength: 255) ?? "application/octet-stream"
        try query.validate()
        let user = try await services.authenticator.optionalUser(request)
        guard let bucketID, let filename else { throw APIError.validation(query.issues) }
        // SelfDB stores an upload whose path and filename are both empty as `unnamed`.
        let wanted = [rawPath, filename].lazy.compactMap { $0 }.first { !$0.trimmingSpaces.isEmpty } ?? "unnamed"
        // SelfDB fails with a 500 on a `..` path or an empty body (and stores nothing);
        // the emulator refuses both before anything is written.
        guard let requestedPath = ObjectPath.normalized(wanted) else {
            throw APIError.badRequest("Invalid file path: '\(wanted)'")
        }
        guard let spooled = request.bodyFile else { throw APIError(status: .internalServerError, detail: "Internal Server Error") }
        let size = ((try? FileManager.default.attributesOfItem(atPath: spooled.path))?[.size] as? NSNumber)?.int64Value ?? 0
        guard size > 0 else { throw APIError.badRequest("Empty file: the request body holds no bytes") }
        let started = ContinuousClock.now
        let fileID = UUIDText.random()
        let key = services.blobs.key(bucketID: bucketID, fileID: fileID)
        let now = Timestamp.now()
        // Written before the record so a stored record always has its bytes.
        let (file, bucket): (FileRecord, BucketRecord) = try await services.database.pool.write { db in
            let bucket = try BucketRecord.load(bucketID, in: db)
            // Any signed-in user may upload to a private bucket; only anonymous callers are refused.
            if !bucket.isPublic, user == nil {
                throw APIError.unauthorized("Authentication required to upload to private buckets")
            }
            var path = requestedPath
            var number = 0
            while try Bool.fetchOne(
                db,
                sql: "SELECT EXISTS (SELECT 1 FROM _selfdb_files WHERE bucket_id = ? AND path = ?)",
                arguments: [bucketID, path]
            ) ?? false {
                number += 1
                path = ObjectPath.numbered(requestedPath, number)
            }
            try services.blobs.adopt(spooled, key: key)
            let file = FileRecord(
                id: fileID,
                bucketID: bucketID,
                name: ObjectPath.name(of: path),
                path: path,
                size: size,
                mimeType: contentType,
                ownerID: user?.id,
                metadata: .object(JSONObject()),
                blobKey: key,
                createdAt: now,
                updatedAt: now
            )
            try file.insert(db)
            return (file, bucket)
        }
        services.realtime.broadcast(table: "files", change: .insert, new: file.realtimeJSON, old: nil)
        // As SelfDB sends it: `upload_time` is the seconds the upload took, `url` a route
        // that does not exist, `original_path` always present.
        let elapsed = ContinuousClock.now - started
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        let response = JSONObject([
            ("success", true),
            ("bucket", .string(bucket.name)),
            ("path", .string(file.path)),
            ("size", .int(file.size)),
            ("file_id", .string(file.id)),
            ("upload_time", .double(seconds)),
            ("url", .string("/api/storage/files/\(bucket.name)/\(file.path)")),
            ("original_path", file.path == requestedPath ? .null : .string(requestedPath)),
            ("message", .string("File uploaded successfully")),
        ])
        return .json(.object(response), status: .created)
    }

    static func read(_ request: APIRequest, _ services: EmulatorServices) async throws -> Response {
        let user = try await services.authenticator.optionalUser(request)
        let id = request.parameter("file_id")
        let json = try await services.database.pool.read { db in
            let file = try FileRecord.load(id, in: db)
            try BucketRecord.load(file.bucketID, in: db).requireRead(user)
            return file.json
        }
        return .json(json)
    }

    static func update(_ request: APIRequest, _ services: EmulatorServices) async throws -> Response {
        let body = try request.json()
        guard let body else { throw APIError.validation([.missing(.body, nil)]) }
        guard let metadata = body.objectValue else { throw APIError.validation([.dictType(.body, nil, input: body)]) }
        let user = try await services.authenticator.requireUser(request)
        let id = request.parameter("file_id")
        let (old, new) = try await services.database.pool.write { db in
            var file = try FileRecord.load(id, in: db)
            let bucket = try BucketRecord.load(file.bucketID, in: db)
            try file.requireOwner(user, bucket: bucket)
            let old = file
            file.metadata = .object(metadata)
            file.updatedAt = Timestamp.now()
            try db.execute(
                sql: "UPDATE _selfdb_files SET metadata = ?, updated_at = ? WHERE id = ?",
                arguments: [JSONWriter.string(file.metadata), file.updatedAt, id]
            )
            return (old, file)
        }
        services.realtime.broadcast(table: "files", change: .update, new: new.realtimeJSON, old: old.realtimeJSON)
        return .json(new.json)
    }

    static func delete(_ request: APIRequest, _ services: EmulatorServices) async throws -> Response {
        let user = try await services.authenticator.requireUser(request)
        let id = request.parameter("file_id")
        let file = try await services.database.pool.write { db in
            let file = try FileRecord.load(id, in: db)
            let bucket = try BucketRecord.load(file.bucketID, in: db)
            try file.requireOwner(user, bucket: bucket)
            try db.execute(sql: "DELETE FROM _selfdb_files WHERE id = ?", arguments: [id])
            return file
        }
        services.blobs.remove(key: file.blobKey)
        services.realtime.broadcast(table: "files", change: .delete, new: nil, old: file.realtimeJSON)
        return .empty(.noContent)
    }

    static func download(_ request: APIRequest, _ services: EmulatorServices) async throws -> Response {
        let user = try await services.authenticator.optionalUser(request)
        let bucketName = request.parameter("bucket_name")
        let path = request.parameter("path")
        let file = try await services.database.pool.read { db in
            guard let bucket = try BucketRecord.find(name: bucketName, in: db) else {
                throw APIError.notFound("Bucket not found")
            }
            try bucket.requireRead(user)
            guard
                let row = try Row.fetchOne(
                    db,
                    sql: "SELECT * FROM _selfdb_files WHERE bucket_id = ? AND path = ?",
                    arguments: [bucket.id, path]
                )
            else { throw APIError.notFound("File not found") }
            return FileRecord(row: row)
        }
        let (size, handle): (Int64, FileHandle)
        do {
            (size, handle) = try services.blobs.open(key: file.blobKey)
        } catch {
            throw APIError(status: .serviceUnavailable, detail: "Storage service unavailable")
        }
        return Response(
            status: .ok,
            headers: [
                .contentType: file.mimeType,
                .contentLength: String(size),
                .contentDisposition: contentDisposition(file.name),
            ],
            body: .streaming(handle, size: size)
        )
    }

    /// `attachment; filename="..."`, with an RFC 5987 form for non-ASCII names.
    static func contentDisposition(_ name: String) -> String {
        let ascii = name.unicodeScalars.allSatisfy { $0.isASCII && $0.value >= 0x20 && $0 != "\"" && $0 != "\\" }
        if ascii {
            return "attachment; filename=\"\(name)\""
        }
        let encoded = name.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? "file"
        return "attachment; filename*=utf-8''\(encoded)"
    }
}

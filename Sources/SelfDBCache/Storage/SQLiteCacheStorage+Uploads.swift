import Foundation
import SelfDBStore

/// The upload queue's rows (`cache_uploads`), in the cache's file: a queued upload is as
/// durable as a queued mutation.
extension SQLiteCacheStorage {
    func enqueueUpload(_ upload: QueuedUpload, contentType: String?, localFile: String, now: Date) throws {
        try write { db in
            try db.execute(
                sql: """
                    INSERT INTO cache_uploads (upload_id, bucket_id, bucket_name, filename, path, content_type, size, local_file, created_at)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
                    """,
                arguments: [
                    upload.id.uuidString, upload.bucketId.uuidString, upload.bucketName, upload.filename, upload.path, contentType, upload.size,
                    localFile, now.timeIntervalSince1970,
                ]
            )
        }
    }

    /// The oldest upload still pending.
    func nextPendingUpload() throws -> UploadRecord? {
        try read { db in
            try db.fetchOne(sql: "SELECT * FROM cache_uploads WHERE state = 'pending' ORDER BY seq LIMIT 1").map(Self.uploadRecord)
        }
    }

    /// Every upload the cache holds a row of, oldest first.
    func uploads() throws -> [UploadRecord] {
        try read { db in try db.fetchAll(sql: "SELECT * FROM cache_uploads ORDER BY seq").map(Self.uploadRecord) }
    }

    func pendingUploadCount() throws -> Int {
        try read { db in try db.value(Int.self, sql: "SELECT count(*) FROM cache_uploads WHERE state = 'pending'") ?? 0 }
    }

    /// Ids of the server's files that uploads of this cache became, so a probe never takes one
    /// of them for another upload.
    func claimedFileIDs() throws -> Set<String> {
        try read { db in Set(try db.values(String.self, sql: "SELECT file_id FROM cache_uploads WHERE file_id IS NOT NULL")) }
    }

    /// Records, before a send, that it may reach the server (`attempted`), and when it began;
    /// or, after a send that certainly did not, that none did.
    func markUploadAttempted(_ sequence: Int64, _ attempted: Bool, at started: Date?) throws {
        try write { db in
            try db.execute(
                sql: "UPDATE cache_uploads SET attempted = ?, attempt_started = coalesce(?, attempt_started) WHERE seq = ?",
                arguments: [attempted ? 1 : 0, started?.timeIntervalSince1970, sequence]
            )
        }
    }

    /// The server holds the upload as `fileID` at `path`.
    func finishUpload(_ sequence: Int64, fileID: UUID, path: String) throws {
        try write { db in
            try db.execute(
                sql: "UPDATE cache_uploads SET state = 'uploaded', file_id = ?, stored_path = ?, attempted = 0 WHERE seq = ?",
                arguments: [fileID.uuidString.lowercased(), path, sequence]
            )
        }
    }

    /// The server refused the upload.
    func failUpload(_ sequence: Int64, reason: String) throws {
        try write { db in
            try db.execute(sql: "UPDATE cache_uploads SET state = 'failed', reason = ?, attempted = 0 WHERE seq = ?", arguments: [reason, sequence])
        }
    }

    private static func uploadRecord(_ row: Row) throws -> UploadRecord {
        let state: QueuedUpload.State
        switch try row.required("state") as String {
        case "uploaded":
            guard let id = UUID(uuidString: try row.required("file_id")) else { throw CacheError.storage("the cache file is damaged: an upload's file id") }
            state = .uploaded(fileId: id, path: try row.required("stored_path"))
        case "failed": state = .failed(row["reason"] ?? "refused")
        default: state = .pending
        }
        guard let id = UUID(uuidString: try row.required("upload_id")), let bucket = UUID(uuidString: try row.required("bucket_id")) else {
            throw CacheError.storage("the cache file is damaged: an upload's id")
        }
        let started: Double? = row["attempt_started"]
        return UploadRecord(
            sequence: try row.required("seq"),
            upload: QueuedUpload(
                id: id,
                bucketId: bucket,
                bucketName: try row.required("bucket_name"),
                filename: try row.required("filename"),
                path: try row.required("path"),
                size: try row.required("size"),
                state: state
            ),
            contentType: row["content_type"],
            localFile: try row.required("local_file"),
            attempted: (try row.required("attempted") as Int64) != 0,
            attemptStarted: started.map(Date.init(timeIntervalSince1970:))
        )
    }
}

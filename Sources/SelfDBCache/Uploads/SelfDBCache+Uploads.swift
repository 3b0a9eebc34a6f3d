import Foundation
import SelfDB

extension SelfDBCache {
    /// Queues the file at `fileURL` for upload, durably, and returns at once: the cache keeps
    /// its own copy (a hard link when `fileURL` is on the same volume, a copy otherwise) in
    /// `<cache file>.uploads/`, records the upload in its file, and ``synchronize()`` sends it,
    /// now or after a relaunch, exactly once.
    ///
    /// ```swift
    /// let queued = try cache.queueUpload(photo, bucketId: bucket.id, bucketName: bucket.name, filename: "IMG_0001.jpg")
    /// try await cache.insert(Post(id: UUID(), photoPath: queued.path), into: "feed")   // sent after the file
    /// await cache.synchronize()
    /// ```
    ///
    /// A send whose answer was lost is settled by looking before it is sent again (SelfDB
    /// stores a second upload at a taken path as `name (1).ext`). While an upload is queued, no
    /// mutation is sent: a row queued after the file that it refers to reaches the server
    /// after the file. The file lands at `path` unless that path was taken; `uploads()` tells
    /// the stored path.
    ///
    /// - Throws: `CacheError.invalidArgument` for a cache opened without a client or a file
    ///   that cannot be read; `CacheError.storage` when the copy or the record cannot be
    ///   written (nothing is queued then).
    @discardableResult
    public func queueUpload(
        _ fileURL: URL,
        bucketId: UUID,
        bucketName: String,
        filename: String,
        path: String? = nil,
        contentType: String? = nil
    ) throws -> QueuedUpload {
        guard selfdb != nil else { throw CacheError.invalidArgument("queued uploads need a cache opened with a SelfDB client") }
        let attributes: [FileAttributeKey: Any]
        do {
            attributes = try FileManager.default.attributesOfItem(atPath: fileURL.path)
        } catch {
            throw CacheError.invalidArgument("\(fileURL.path) cannot be read: \(error.localizedDescription)")
        }
        guard attributes[.type] as? FileAttributeType == .typeRegular, FileManager.default.isReadableFile(atPath: fileURL.path) else {
            throw CacheError.invalidArgument("\(fileURL.path) is not a readable file")
        }
        let id = UUID()
        let copy = uploadsFolder.appendingPathComponent(id.uuidString)
        do {
            try FileManager.default.createDirectory(at: uploadsFolder, withIntermediateDirectories: true)
            // A hard link costs nothing and survives the app deleting its own file; across
            // volumes, a copy.
            if link(fileURL.path, copy.path) != 0 { try FileManager.default.copyItem(at: fileURL, to: copy) }
        } catch {
            throw CacheError.storage("cannot keep a copy of \(fileURL.lastPathComponent) for its upload: \(error.localizedDescription)")
        }
        let wanted = (path ?? filename).trimmingCharacters(in: CharacterSet(charactersIn: "/"))
        let upload = QueuedUpload(
            id: id,
            bucketId: bucketId,
            bucketName: bucketName,
            filename: filename,
            path: wanted,
            size: (attributes[.size] as? NSNumber)?.int64Value ?? 0,
            state: .pending
        )
        do {
            try storage.enqueueUpload(upload, contentType: contentType, localFile: copy.path, now: Date())
        } catch {
            try? FileManager.default.removeItem(at: copy)
            throw error
        }
        return upload
    }

    /// Every upload queued in this cache, oldest first, with where it stands.
    public func uploads() throws -> [QueuedUpload] {
        try storage.uploads().map(\.upload)
    }
}

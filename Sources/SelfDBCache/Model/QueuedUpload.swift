import Foundation

/// A file queued with ``SelfDBCache/queueUpload(_:bucketId:bucketName:filename:path:contentType:)``:
/// kept in the cache's folder and recorded in its file until the server holds it.
public struct QueuedUpload: Sendable, Hashable, Identifiable {
    /// Where the upload stands.
    public enum State: Sendable, Hashable {
        /// Not sent yet, or sent without an answer (settled by looking before it is sent again).
        case pending
        /// The server holds it, as `fileId` at `path` (SelfDB stores an upload to a taken path
        /// as `name (1).ext`).
        case uploaded(fileId: UUID, path: String)
        /// The server refused it (a missing bucket, no permission); the local copy is removed.
        case failed(String)
    }

    /// The upload's own id, given when it was queued.
    public var id: UUID
    /// The bucket.
    public var bucketId: UUID
    /// The bucket's name (downloads address files by it).
    public var bucketName: String
    /// The file name sent.
    public var filename: String
    /// The object path asked for.
    public var path: String
    /// The file's size in bytes.
    public var size: Int64
    /// Where it stands.
    public var state: State
}

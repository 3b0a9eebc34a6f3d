import Foundation

/// A row of `cache_uploads`: a queued file and what is known of its sends.
struct UploadRecord: Sendable, Hashable {
    var sequence: Int64
    var upload: QueuedUpload
    var contentType: String?
    /// The cache's own copy of the file, sent from.
    var localFile: String
    /// Whether a send may have reached the server (set before each send).
    var attempted: Bool
    /// When the last send began: a file the server holds from it was created after this.
    var attemptStarted: Date?
}

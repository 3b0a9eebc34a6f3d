import Foundation
import SelfDBRuntime

// Files of any size, streamed from and to disk. The spec language has no body or answer that
// is a file (a `stream:` kind would be one), so these two sit beside the generated
// `upload(_:filename:data:path:contentType:)` and `download(bucketName:path:)`, with the
// same names, requests and errors, hand-written over `APIClient.upload` and `download`.
extension SelfDB.Storage.Files {
    /// Uploads the file at `fileURL`, read from disk as it is sent: memory stays flat
    /// whatever the file's size.
    ///
    /// ```swift
    /// let stored = try await selfdb.storage.files.upload(bucket.id, filename: "clip.mov", fileURL: clip) { progress in
    ///     print(progress.fractionDone ?? 0)
    /// }
    /// ```
    ///
    /// Cancelling the calling task stops the upload at once. An upload whose answer was lost
    /// is not sent again by itself (the server may hold the file, and SelfDB stores a second
    /// upload to a taken path as `name (1).ext`): look for the file before sending it again
    /// (`SelfDBError.outcomeIsUnknown`).
    ///
    /// - Parameters:
    ///   - bucketId: The bucket.
    ///   - filename: The file name.
    ///   - fileURL: The local file to send.
    ///   - path: The full object path; defaults to the filename.
    ///   - contentType: The stored MIME type.
    ///   - progress: Told the bytes sent, at least every 1 % or 1 MiB, and at the end.
    /// - Throws: `SelfDBError.fileError` when the file does not exist or cannot be read
    ///   (nothing is sent); the server's and the network's errors as for the `Data` variant.
    @discardableResult
    public func upload(
        _ bucketId: Foundation.UUID,
        filename: String,
        fileURL: URL,
        path: String? = nil,
        contentType: String? = nil,
        progress: TransferProgressHandler? = nil
    ) async throws -> FileUploadResponse {
        try await api.upload(
            APIRequest(
                method: .post,
                path: "/storage/files/upload",
                auth: .optionalBearer,
                query: [
                    QueryItem("bucket_id", bucketId),
                    QueryItem("filename", filename),
                    QueryItem("path", path),
                    QueryItem("content_type", contentType),
                ]
            ),
            fromFile: fileURL,
            progress: progress,
            decoding: FileUploadResponse.self
        )
    }

    /// Downloads a file to `destination`, written as it arrives: memory stays flat whatever the
    /// file's size. `destination` is replaced only once the whole file arrived; a download that
    /// fails or is cancelled (the calling task's cancellation stops it at once) leaves it as it
    /// was, and no partial file.
    ///
    /// - Parameters:
    ///   - bucketName: The bucket's name.
    ///   - path: The file's object path.
    ///   - destination: Where to write the file (its folder must exist).
    ///   - progress: Told the bytes received, at least every 1 % or 1 MiB, and at the end.
    /// - Returns: The size of the file written.
    /// - Throws: `SelfDBError.fileError` when `destination` cannot be written or the disk
    ///   fills up, `SelfDBError.invalidResponse` when the body is shorter or longer than its
    ///   `Content-Length`, the server's and the network's errors as for the `Data` variant.
    @discardableResult
    public func download(bucketName: String, path: String, to destination: URL, progress: TransferProgressHandler? = nil) async throws -> Int64 {
        try await api.download(
            APIRequest(
                method: .get,
                path: "/storage/files/download/\(path: bucketName)/\(pathRest: path)",
                auth: .optionalBearer
            ),
            to: destination,
            progress: progress
        )
    }
}

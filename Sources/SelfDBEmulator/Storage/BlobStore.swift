import Foundation

/// Uploaded file contents on disk under `<data directory>/storage/<bucket id>/<file id>`.
///
/// Object paths never become file system paths, so `../` in an upload path cannot escape
/// the data directory.
struct BlobStore: Sendable {
    let root: URL

    init(root: URL) throws {
        self.root = root
        try FileManager.default.createDirectory(at: incoming, withIntermediateDirectories: true)
    }

    /// Where uploads are spooled while they arrive.
    private var incoming: URL { root.appendingPathComponent(".incoming", isDirectory: true) }

    private func url(forKey key: String) -> URL {
        root.appendingPathComponent(key, isDirectory: false)
    }

    func key(bucketID: String, fileID: String) -> String {
        "\(bucketID)/\(fileID)"
    }

    /// Moves `file` (a spooled upload, on the same file system) into place as `key`'s bytes.
    func adopt(_ file: URL, key: String) throws {
        let destination = url(forKey: key)
        try FileManager.default.createDirectory(
            at: destination.deletingLastPathComponent(),
            withIntermediateDirectories: true
        )
        try FileManager.default.moveItem(at: file, to: destination)
    }

    /// A new file name for an upload being received, under the store's root (so adopting it
    /// is a rename).
    func spoolFile() -> URL {
        incoming.appendingPathComponent(UUID().uuidString)
    }

    /// The size of `key`'s bytes, and a handle to read them in chunks.
    func open(key: String) throws -> (size: Int64, handle: FileHandle) {
        try FileHandle.forStreaming(url(forKey: key))
    }

    func remove(key: String) {
        try? FileManager.default.removeItem(at: url(forKey: key))
    }

    func removeBucket(_ bucketID: String) {
        try? FileManager.default.removeItem(at: root.appendingPathComponent(bucketID, isDirectory: true))
    }
}

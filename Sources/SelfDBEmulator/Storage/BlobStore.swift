import Foundation

/// Uploaded file contents on disk under `<data directory>/storage/<bucket id>/<file id>`.
///
/// Object paths never become file system paths, so `../` in an upload path cannot escape
/// the data directory.
struct BlobStore: Sendable {
    let root: URL

    init(root: URL) throws {
        self.root = root
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
    }

    private func url(forKey key: String) -> URL {
        root.appendingPathComponent(key, isDirectory: false)
    }

    func key(bucketID: String, fileID: String) -> String {
        "\(bucketID)/\(fileID)"
    }

    func write(_ bytes: [UInt8], key: String) throws {
        let destination = url(forKey: key)
        try FileManager.default.createDirectory(
            at: destination.deletingLastPathComponent(),
            withIntermediateDirectories: true
        )
        try Data(bytes).write(to: destination, options: .atomic)
    }

    func read(key: String) throws -> Data {
        try Data(contentsOf: url(forKey: key))
    }

    func remove(key: String) {
        try? FileManager.default.removeItem(at: url(forKey: key))
    }

    func removeBucket(_ bucketID: String) {
        try? FileManager.default.removeItem(at: root.appendingPathComponent(bucketID, isDirectory: true))
    }
}

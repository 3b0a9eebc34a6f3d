import Foundation

extension MultipartFileForm {
    /// Writes the whole form — head, the bytes of `file`, tail — to a new file in the
    /// temporary folder, 1 MiB at a time, and returns it: a file every transport can stream
    /// (URLSession uploads only from one file), at the price of a copy on disk while it is sent.
    /// The caller removes it.
    ///
    /// - Throws: ``TransferFileError`` when `file` cannot be read or the copy cannot be written
    ///   (no copy is left then); `CancellationError` when the task is cancelled meanwhile.
    package func composeOnDisk(around file: URL) throws -> URL {
        let composed = FileManager.default.temporaryDirectory.appendingPathComponent("selfdb-form-\(UUID().uuidString).multipart")
        let source = open(file.path, O_RDONLY)
        guard source >= 0 else { throw TransferFileError(path: file.path, errno: errno) }
        defer { close(source) }
        let sink = open(composed.path, O_WRONLY | O_CREAT | O_EXCL, 0o600)
        guard sink >= 0 else { throw TransferFileError(path: composed.path, errno: errno) }
        var finished = false
        defer {
            close(sink)
            if !finished { unlink(composed.path) }
        }
        try Self.write(head, to: sink, path: composed.path)
        let chunk = 1 << 20
        let buffer = UnsafeMutableRawPointer.allocate(byteCount: chunk, alignment: 16)
        defer { buffer.deallocate() }
        while true {
            try Task.checkCancellation()
            let count = read(source, buffer, chunk)
            if count == 0 { break }
            if count < 0 {
                if errno == EINTR { continue }
                throw TransferFileError(path: file.path, errno: errno)
            }
            try writeFully(buffer, count: count, to: sink, path: composed.path)
        }
        try Self.write(tail, to: sink, path: composed.path)
        finished = true
        return composed
    }

    private static func write(_ data: Data, to descriptor: Int32, path: String) throws {
        try data.withUnsafeBytes { bytes in
            guard let base = bytes.baseAddress else { return }
            try writeFully(base, count: bytes.count, to: descriptor, path: path)
        }
    }
}

import Foundation

/// How far an upload or a download has come.
public struct TransferProgress: Sendable, Hashable {
    /// Bytes of the body sent (an upload) or received (a download) so far.
    public var bytesDone: Int64
    /// The body's size, when known: a file's size for an upload, the answer's
    /// `Content-Length` for a download.
    public var bytesExpected: Int64?

    /// A progress of `bytesDone` out of `bytesExpected`.
    public init(bytesDone: Int64, bytesExpected: Int64?) {
        self.bytesDone = bytesDone
        self.bytesExpected = bytesExpected
    }

    /// `bytesDone` as a fraction of `bytesExpected` (0 to 1), when the size is known.
    public var fractionDone: Double? {
        guard let bytesExpected, bytesExpected > 0 else { return nil }
        return min(1, Double(bytesDone) / Double(bytesExpected))
    }
}

/// Called as a transfer goes on: at least every 1 % or 1 MiB of the body (whichever comes
/// first), and once at its end. Called on a transport's thread: keep it short.
public typealias TransferProgressHandler = @Sendable (TransferProgress) -> Void

/// Passes a transfer's progress on only when it moved by a step (1 % or 1 MiB, whichever is
/// smaller) since the last report, and always when it is complete, so a handler is called a
/// few hundred times for a large file, not once per chunk.
package struct ProgressThrottle {
    private let handler: TransferProgressHandler
    private var reported: Int64 = -1
    private var completed = false

    package init(_ handler: @escaping TransferProgressHandler) {
        self.handler = handler
    }

    /// Reports `done` of `expected` if it is a step past the last report or the end.
    package mutating func update(done: Int64, expected: Int64?) {
        let step = min(1 << 20, max(1, (expected ?? Int64.max) / 100))
        let complete = expected.map { done >= $0 } ?? false
        guard !completed, done > reported, complete || reported < 0 || done - reported >= step else { return }
        reported = done
        completed = complete
        handler(TransferProgress(bytesDone: done, bytesExpected: expected))
    }
}

/// A local file an upload reads or a download writes could not be used: it does not exist,
/// cannot be read or written, or the disk filled up. Thrown by transports; the client reports
/// it as `SelfDBError.fileError`.
public struct TransferFileError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The file.
    public var path: String
    /// What went wrong, in the system's words.
    public var reason: String

    /// A failure of `path`, for `reason`.
    public init(path: String, reason: String) {
        self.path = path
        self.reason = reason
    }

    /// A failure of `path` for the C library's `errno` value `code`.
    package init(path: String, errno code: Int32) {
        self.init(path: path, reason: String(cString: strerror(code)))
    }

    /// The file's path and what went wrong, e.g. `/tmp/clip.mov: No space left on device`.
    public var description: String { "\(path): \(reason)" }
}

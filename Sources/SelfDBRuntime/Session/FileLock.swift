import Foundation

#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// An exclusive lock across processes on a file (`flock`): what several processes sharing a
/// session file take before refreshing it.
///
/// `flock` locks belong to an open file, so each acquisition opens the file anew: two holders
/// in one process exclude each other as two processes do. The system releases the lock when its
/// holder closes the file or dies, so a process killed while holding it blocks no one.
struct FileLock: Sendable {
    /// The lock file; created (owner-only) when missing.
    let url: URL

    /// Runs `body` while holding the lock. Waiting for it blocks a thread of its own, never the
    /// caller's.
    func withLock<T: Sendable>(_ body: @Sendable () async throws -> T) async throws -> T {
        let descriptor = try await acquire()
        defer {
            _ = flock(descriptor, LOCK_UN)
            _ = close(descriptor)
        }
        return try await body()
    }

    private func acquire() async throws -> Int32 {
        let path = url.path
        return try await withCheckedThrowingContinuation { continuation in
            let thread = Thread {
                continuation.resume(with: Result { try Self.lock(path) })
            }
            thread.name = "selfdb.session-lock"
            thread.start()
        }
    }

    private static func lock(_ path: String) throws -> Int32 {
        let directory = (path as NSString).deletingLastPathComponent
        try? FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let descriptor = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { throw FileLockError(path: path, step: "open", code: errno) }
        while flock(descriptor, LOCK_EX) != 0 {
            guard errno == EINTR else {
                let code = errno
                _ = close(descriptor)
                throw FileLockError(path: path, step: "flock", code: code)
            }
        }
        return descriptor
    }
}

/// The lock file of a shared session could not be opened or locked.
public struct FileLockError: Error, CustomStringConvertible, Sendable {
    /// The lock file.
    public var path: String
    /// The call that failed.
    public var step: String
    /// `errno`.
    public var code: Int32

    /// `could not lock /…/session.json.lock (flock: errno 9)`.
    public var description: String { "could not lock \(path) (\(step): errno \(code))" }
}

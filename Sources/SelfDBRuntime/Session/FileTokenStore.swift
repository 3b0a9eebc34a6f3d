import Foundation

#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Keeps the session in a JSON file readable by the current user only (0600), so a command-line
/// tool or a server-side app stays signed in across launches, and several processes can share
/// one session: an app and its extensions, over a file in their app-group container.
///
/// The file is the source of truth: every read checks whether it changed on disk (its size,
/// modification time and inode; the text is read again only then), a save replaces it whole
/// (written beside it, then renamed over it, so no reader sees half a session), and a refresh
/// runs under a lock across processes (`flock` on `<file>.lock` beside it), after re-reading
/// the file: when another process refreshed first, its tokens are used and nothing is sent. The
/// system releases the lock of a process that dies holding it.
///
/// ```swift
/// let shared = FileManager.default.containerURL(forSecurityApplicationGroupIdentifier: "group.com.example.app")!
/// let selfdb = SelfDB(baseUrl: url, apiKey: key, tokenStore: FileTokenStore(url: shared.appendingPathComponent("selfdb-session.json")))
/// ```
public actor FileTokenStore: TokenStore {
    private let url: URL
    private let lock: FileLock
    /// The session last read or written, and the file's identity then.
    private var cached: (session: StoredSession?, stamp: FileStamp?)?
    /// The file's identity after this store's last save (nil inside: it removed the file).
    private var written: FileStamp??
    /// How often ``externalChanges()`` looks at the file.
    private let pollInterval: Duration

    /// A store at `url`; the file is created on the first save. ``externalChanges()`` looks at
    /// the file every `pollInterval` while it is iterated.
    public init(url: URL, pollInterval: Duration = .milliseconds(500)) {
        self.url = url
        self.lock = FileLock(url: url.appendingPathExtension("lock"))
        self.pollInterval = pollInterval
    }

    public func load() -> StoredSession? {
        let stamp = FileStamp(of: url)
        if let cached, cached.stamp == stamp { return cached.session }
        let session = stamp == nil ? nil : Self.read(url)
        cached = (session, stamp)
        return session
    }

    public func reload() -> StoredSession? {
        cached = nil
        return load()
    }

    public func save(_ session: StoredSession?) {
        guard let session else {
            try? FileManager.default.removeItem(at: url)
            cached = (nil, nil)
            written = .some(nil)
            return
        }
        guard let data = try? JSONCoding.makeEncoder().encode(session) else { return }
        let directory = url.deletingLastPathComponent()
        try? FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        // Written owner-only from the start (the tokens are credentials), then renamed over
        // the old file: another process reads the old session or the new one, never a part.
        let temporary = directory.appendingPathComponent(".\(url.lastPathComponent).\(getpid()).\(UInt32.random(in: 0...UInt32.max))")
        guard FileManager.default.createFile(atPath: temporary.path, contents: data, attributes: [.posixPermissions: 0o600]),
            rename(temporary.path, url.path) == 0
        else {
            try? FileManager.default.removeItem(at: temporary)
            return
        }
        let stamp = FileStamp(of: url)
        cached = (session, stamp)
        written = .some(stamp)
    }

    public nonisolated func withRefreshLock<T: Sendable>(_ body: @Sendable () async throws -> T) async throws -> T {
        try await lock.withLock(body)
    }

    public nonisolated func externalChanges() -> AsyncStream<StoredSession?>? {
        let (stream, continuation) = AsyncStream.makeStream(of: StoredSession?.self, bufferingPolicy: .bufferingNewest(8))
        let task = Task { [weak self, pollInterval] in
            var last = await self?.currentStamp()
            while !Task.isCancelled {
                try? await Task.sleep(for: pollInterval)
                guard let self else { break }
                let (stamp, session, wasOurs) = await self.look()
                if stamp != last {
                    last = stamp
                    if !wasOurs { continuation.yield(session) }
                }
            }
            continuation.finish()
        }
        continuation.onTermination = { _ in task.cancel() }
        return stream
    }

    /// The file's identity now.
    private func currentStamp() -> FileStamp? { FileStamp(of: url) }

    /// The file's identity and session now, and whether this store wrote that version.
    private func look() -> (FileStamp?, StoredSession?, Bool) {
        let stamp = FileStamp(of: url)
        let wasOurs = written.map { $0 == stamp } ?? false
        return (stamp, load(), wasOurs)
    }

    private static func read(_ url: URL) -> StoredSession? {
        (try? Data(contentsOf: url)).flatMap { try? JSONCoding.makeDecoder().decode(StoredSession.self, from: $0) }
    }
}

/// What tells that a file changed without reading it: its inode (a save renames a new file
/// over it), size and modification time.
struct FileStamp: Equatable, Sendable {
    var inode: UInt64
    var size: Int64
    var modified: Double

    init?(of url: URL) {
        var status = stat()
        guard stat(url.path, &status) == 0 else { return nil }
        inode = UInt64(status.st_ino)
        size = Int64(status.st_size)
        #if canImport(Darwin)
        modified = Double(status.st_mtimespec.tv_sec) + Double(status.st_mtimespec.tv_nsec) / 1e9
        #else
        modified = Double(status.st_mtim.tv_sec) + Double(status.st_mtim.tv_nsec) / 1e9
        #endif
    }
}

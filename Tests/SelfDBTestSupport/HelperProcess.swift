import Foundation

#if os(macOS) || os(Linux)
#if canImport(Darwin)
import Darwin
#else
import Glibc
#endif

/// A helper executable the tests start, read and kill, started with `posix_spawn` directly.
///
/// Why not Foundation's `Process`: on Linux its `run()` lists `/proc/self/fd` to close every
/// descriptor in the child, and copies each directory entry's whole 256-byte name buffer
/// while doing so. With some 1,350 descriptors open in the test process (a full parallel
/// run), the last entries sit at the end of the listing's buffer, the copy reads past it, and
/// the whole test process dies of a segmentation fault in `memmove` — in a test that had
/// nothing to do with it, once in a while. Here the child closes its inherited descriptors
/// with `posix_spawn_file_actions_addclosefrom_np` (glibc 2.34 and later) or
/// `POSIX_SPAWN_CLOEXEC_DEFAULT` (Darwin), and no directory is read.
public final class HelperProcess: @unchecked Sendable {
    /// How the helper ended.
    public enum Termination: Equatable, Sendable {
        case exit(Int32)
        case signal(Int32)
    }

    public let processIdentifier: pid_t
    /// The read end of the helper's standard output (and of its standard error, when merged).
    public let output: FileHandle
    private let lock = NSLock()
    private var termination: Termination?

    /// Starts `executable` with `arguments`, standard input from `/dev/null`, standard output
    /// to ``output``, and standard error to the same pipe when `mergeErrors`, or to the tests'
    /// own standard error. `environment` nil passes the tests' environment on.
    public init(_ executable: URL, arguments: [String] = [], environment: [String: String]? = nil, mergeErrors: Bool = false) throws {
        var ends: [Int32] = [-1, -1]
        guard pipe(&ends) == 0 else { throw Self.error("pipe") }
        // Neither end may leak into a helper another test starts meanwhile.
        for end in ends { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }
        let (readEnd, writeEnd) = (ends[0], ends[1])

        #if canImport(Darwin)
        var actions: posix_spawn_file_actions_t?
        var attributes: posix_spawnattr_t?
        #else
        var actions = posix_spawn_file_actions_t()
        var attributes = posix_spawnattr_t()
        #endif
        posix_spawn_file_actions_init(&actions)
        posix_spawnattr_init(&attributes)
        defer {
            posix_spawn_file_actions_destroy(&actions)
            posix_spawnattr_destroy(&attributes)
        }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_adddup2(&actions, writeEnd, 1)
        if mergeErrors { posix_spawn_file_actions_adddup2(&actions, writeEnd, 2) }
        #if canImport(Darwin)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_CLOEXEC_DEFAULT))
        #else
        if let closeFrom = Self.addCloseFrom { _ = closeFrom(&actions, 3) }
        #endif

        let argv = ([executable.path] + arguments).map { strdup($0) }
        let envp = (environment ?? ProcessInfo.processInfo.environment).map { strdup("\($0.key)=\($0.value)") }
        defer {
            for string in argv + envp { free(string) }
        }
        var pid: pid_t = 0
        let status = executable.path.withCString { path in
            posix_spawn(&pid, path, &actions, &attributes, argv + [nil], envp + [nil])
        }
        close(writeEnd)
        guard status == 0 else {
            close(readEnd)
            throw Self.error("posix_spawn \(executable.lastPathComponent)", code: status)
        }
        processIdentifier = pid
        output = FileHandle(fileDescriptor: readEnd, closeOnDealloc: true)
    }

    deinit {
        // A helper never waited for would stay a zombie until the tests end.
        if termination == nil {
            kill(processIdentifier, SIGKILL)
            _ = waitUntilExit()
        }
    }

    /// Sends `signal` to the helper.
    public func send(_ signal: Int32) {
        kill(processIdentifier, signal)
    }

    /// Waits for the helper to end (blocking the calling thread) and says how it did.
    @discardableResult
    public func waitUntilExit() -> Termination {
        lock.lock()
        defer { lock.unlock() }
        if let termination { return termination }
        var status: Int32 = 0
        while waitpid(processIdentifier, &status, 0) == -1, errno == EINTR {}
        // The `WIFEXITED` family are macros Swift does not import.
        let ended: Termination = status & 0x7f == 0 ? .exit((status >> 8) & 0xff) : .signal(status & 0x7f)
        termination = ended
        return ended
    }

    /// Waits for the helper to end on a GCD thread: a blocking wait on the cooperative pool
    /// would starve the other tests.
    public func exited() async -> Termination {
        await withCheckedContinuation { continuation in
            DispatchQueue.global().async { continuation.resume(returning: self.waitUntilExit()) }
        }
    }

    #if !canImport(Darwin)
    private typealias AddCloseFrom = @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32

    /// glibc's `posix_spawn_file_actions_addclosefrom_np`, which its headers declare only for
    /// `_GNU_SOURCE`, so Swift does not see it.
    private static let addCloseFrom: AddCloseFrom? = {
        guard let symbol = dlsym(dlopen(nil, RTLD_NOW), "posix_spawn_file_actions_addclosefrom_np") else { return nil }
        return unsafeBitCast(symbol, to: AddCloseFrom.self)
    }()
    #endif

    private static func error(_ call: String, code: Int32 = errno) -> NSError {
        NSError(domain: NSPOSIXErrorDomain, code: Int(code), userInfo: [NSLocalizedDescriptionKey: "\(call) failed: \(String(cString: strerror(code)))"])
    }
}
#endif

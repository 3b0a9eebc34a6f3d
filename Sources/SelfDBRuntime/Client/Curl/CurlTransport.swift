#if canImport(CCurl)
import CCurl
import Dispatch
import Foundation
import FoundationNetworking

/// ``HTTPTransport`` over libcurl's easy interface: the default transport on Linux.
///
/// Why not `URLSession` there: FoundationNetworking drives libcurl's multi interface with
/// dispatch sources, and it keeps a socket's write source after curl has stopped asking to
/// write. Once a request body has gone out, that source fires again and again for as long as
/// the server takes to answer, each time waking two threads that find nothing to do (about
/// 6,600 wake-ups in one protocol-2 sync of 10,000 rows, each a `poll` and an
/// `ioctl(TIOCOUTQ)` under `strace`): a core kept busy, taken from the app and, on loopback,
/// from the server. Here a transfer is one `curl_easy_perform` on a thread of its own, which
/// waits in `poll` until the socket is ready.
///
/// Behaves as `URLSessionTransport` does for the requests the clients make: any method, the
/// request's headers and body, redirects followed, compressed bodies decoded, the request's
/// `timeoutInterval` as the longest wait for the connection or for the next byte, transport
/// failures thrown as `URLError` with the codes `URLSession` uses, and cancellation of the
/// calling task as `URLError(.cancelled)`, at once. Connections are kept alive between
/// requests: each idle easy handle keeps its own.
///
/// A request goes out once. libcurl sends a request again by itself when a kept-alive
/// connection dies before any byte of the answer comes back, whatever the method; here only a
/// safe one (GET, HEAD, OPTIONS) may be, and any other fails with
/// `URLError(.networkConnectionLost)`, as URLSession fails a non-idempotent request. Every
/// failure records under ``RequestDelivery/userInfoKey`` whether the request may have reached
/// the server (``RequestDelivery/unknown``) or certainly did not
/// (``RequestDelivery/notSent``: no connection, or no byte of it written), so the client can
/// decide what may be sent again. A request body given as a stream is not supported (the
/// clients never send one): it fails with `URLError(.unsupportedURL)`; a body read from a file
/// (``upload(_:fromFile:progress:)``) or an answer written to one
/// (``download(_:toFile:progress:)``) streams through libcurl's read and write callbacks, one
/// chunk in memory at a time.
public final class CurlTransport: HTTPTransport {
    /// Handles between transfers, with their open connections.
    private let idle = Locked<[CurlHandle]>([])

    /// How many idle handles (and their connections) are kept for later requests.
    static let idleHandleLimit = 8

    /// A transport with no open connection yet.
    public init() {
        CurlHandle.initializeLibrary()
    }

    public func send(_ request: URLRequest) async throws -> (Data, HTTPURLResponse) {
        try await run(request) { $0 }
    }

    /// Reads the body from `file` in chunks as it goes out (libcurl's read callback), so an
    /// upload of any size holds one chunk in memory.
    public func upload(_ request: URLRequest, fromFile file: URL, progress: TransferProgressHandler?) async throws -> (Data, HTTPURLResponse) {
        let source = try OpenFile(reading: file)
        defer { source.close() }
        return try await run(request) { plain in
            var transfer = plain
            transfer.body = .file(descriptor: source.descriptor, size: source.size, path: file.path)
            transfer.progress = progress
            return transfer
        }
    }

    /// Writes the body into `file` in chunks as it arrives (libcurl's write callback), so a
    /// download of any size holds one chunk in memory.
    public func download(_ request: URLRequest, toFile file: URL, progress: TransferProgressHandler?) async throws -> HTTPURLResponse {
        let sink = try OpenFile(writing: file)
        defer { sink.close() }
        return try await run(request) { plain in
            var transfer = plain
            transfer.sink = .file(descriptor: sink.descriptor, path: file.path)
            transfer.progress = progress
            return transfer
        }.1
    }

    /// Runs the transfer `configure` makes of `request` on an idle handle's queue; the
    /// calling task's cancellation stops it.
    private func run(_ request: URLRequest, _ configure: @escaping @Sendable (CurlTransfer) -> CurlTransfer) async throws -> (Data, HTTPURLResponse) {
        let cancellation = CurlCancellation()
        let handle = try idle.withLock { $0.popLast() } ?? CurlHandle()
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                cancellation.await(continuation)
                handle.queue.async {
                    cancellation.finish(with: Result { try self.perform(request, on: handle, cancellation: cancellation, configure) })
                }
            }
        } onCancel: {
            cancellation.cancel()
        }
    }

    private func perform(
        _ request: URLRequest,
        on handle: CurlHandle,
        cancellation: CurlCancellation,
        _ configure: (CurlTransfer) -> CurlTransfer
    ) throws -> (Data, HTTPURLResponse) {
        defer {
            // Drops every option, so the handle keeps no pointer into this transfer's buffers
            // (its header list, body and error text); its connections stay open.
            curl_easy_reset(handle.raw)
            idle.withLock { handles in
                if handles.count < Self.idleHandleLimit { handles.append(handle) }
            }
        }
        if cancellation.isCancelled { throw URLError(.cancelled).recording(.notSent) }
        return try configure(CurlTransfer(request: request, handle: handle, cancellation: cancellation)).run()
    }
}

/// A file opened for a transfer's body: read from (its size known) or written to (created, or
/// emptied), failing with ``TransferFileError``.
private struct OpenFile: Sendable {
    let descriptor: Int32
    let size: Int64

    init(reading file: URL) throws {
        let descriptor = open(file.path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { throw TransferFileError(path: file.path, errno: errno) }
        var status = stat()
        guard fstat(descriptor, &status) == 0 else {
            let code = errno
            Foundation.close(descriptor)
            throw TransferFileError(path: file.path, errno: code)
        }
        guard status.st_mode & S_IFMT == S_IFREG else {
            Foundation.close(descriptor)
            throw TransferFileError(path: file.path, reason: "is not a regular file")
        }
        self.descriptor = descriptor
        self.size = Int64(status.st_size)
    }

    init(writing file: URL) throws {
        let descriptor = open(file.path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { throw TransferFileError(path: file.path, errno: errno) }
        self.descriptor = descriptor
        self.size = 0
    }

    func close() { _ = Foundation.close(descriptor) }
}

/// The task waiting for a transfer, and whether it was cancelled.
///
/// A cancelled task is answered at once with `URLError(.cancelled)`: the transfer itself
/// stops when curl next calls its progress callback (up to a second later while it waits for
/// the server), on its own thread, and whatever it received then is dropped. So a cancelled
/// call returns promptly and nothing of its late answer reaches the caller.
final class CurlCancellation: Sendable {
    typealias Waiter = CheckedContinuation<(Data, HTTPURLResponse), any Error>

    private let state = Locked<(cancelled: Bool, waiter: Waiter?)>((false, nil))

    /// Keeps `waiter` until the transfer ends or the task is cancelled (at once if it was).
    func await(_ waiter: Waiter) {
        let cancelled = state.withLock { state in
            if !state.cancelled { state.waiter = waiter }
            return state.cancelled
        }
        if cancelled { waiter.resume(throwing: Self.cancellationError) }
    }

    /// Hands the transfer's result to the waiter, unless it was answered already.
    func finish(with result: Result<(Data, HTTPURLResponse), any Error>) {
        take()?.resume(with: result)
    }

    func cancel() {
        state.withLock { $0.cancelled = true }
        take()?.resume(throwing: Self.cancellationError)
    }

    var isCancelled: Bool { state.current.cancelled }

    private func take() -> Waiter? {
        state.withLock { state in
            defer { state.waiter = nil }
            return state.waiter
        }
    }

    /// A cancelled request may have been written already.
    private static let cancellationError = URLError(.cancelled).recording(.unknown)
}

/// One libcurl easy handle, and the queue its transfers run on. Reset after each transfer,
/// which keeps its connection cache.
final class CurlHandle: @unchecked Sendable {
    // Unchecked: the handle is used by one transfer at a time, taken from and returned to
    // `CurlTransport.idle` under its lock.
    let raw: UnsafeMutableRawPointer
    /// A transfer blocks its thread in `poll` until the server answers: a serial queue of the
    /// handle's own, which libdispatch runs on an overcommit thread (a new one whenever the
    /// others are busy). On a concurrent queue, libdispatch on Linux would run about as many
    /// transfers at once as there are cores, and add a thread for a blocked one only once a
    /// second: with two transfers waiting on slow answers, a third waited for seconds.
    let queue = DispatchQueue(label: "selfdb.curl-transfer", qos: .userInitiated)

    init() throws {
        guard let raw = curl_easy_init() else {
            throw URLError(.unknown, userInfo: [NSLocalizedDescriptionKey: "libcurl could not make a handle"])
        }
        self.raw = raw
    }

    deinit { curl_easy_cleanup(raw) }

    /// `curl_global_init`, once per process, before the first handle.
    static func initializeLibrary() { _ = libraryInitialization }

    private static let libraryInitialization: CURLcode = curl_global_init(Int(CURL_GLOBAL_ALL))
}
#endif

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
/// calling task as `URLError(.cancelled)`. Connections are kept alive between requests: each
/// idle easy handle keeps its own. A request body given as a stream is not supported (the
/// clients never send one): it fails with `URLError(.unsupportedURL)`.
public final class CurlTransport: HTTPTransport {
    /// Handles between transfers, with their open connections.
    private let idle = Locked<[CurlHandle]>([])
    /// Transfers block their thread in `poll`: a queue of their own, not the cooperative pool.
    private let queue = DispatchQueue(label: "selfdb.curl-transport", qos: .userInitiated, attributes: .concurrent)

    /// How many idle handles (and their connections) are kept for later requests.
    static let idleHandleLimit = 8

    /// A transport with no open connection yet.
    public init() {
        CurlHandle.initializeLibrary()
    }

    public func send(_ request: URLRequest) async throws -> (Data, HTTPURLResponse) {
        let cancellation = CurlCancellation()
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                queue.async {
                    continuation.resume(with: Result { try self.perform(request, cancellation: cancellation) })
                }
            }
        } onCancel: {
            cancellation.cancel()
        }
    }

    private func perform(_ request: URLRequest, cancellation: CurlCancellation) throws -> (Data, HTTPURLResponse) {
        if cancellation.isCancelled { throw URLError(.cancelled) }
        let handle = try idle.withLock { $0.popLast() } ?? CurlHandle()
        defer {
            // Drops every option, so the handle keeps no pointer into this transfer's buffers
            // (its header list, body and error text); its connections stay open.
            curl_easy_reset(handle.raw)
            idle.withLock { handles in
                if handles.count < Self.idleHandleLimit { handles.append(handle) }
            }
        }
        return try CurlTransfer(request: request, handle: handle, cancellation: cancellation).run()
    }
}

/// Whether the task waiting for a transfer was cancelled: read by curl's progress callback,
/// which then aborts the transfer.
final class CurlCancellation: Sendable {
    private let flag = Locked(false)

    func cancel() { flag.withLock { $0 = true } }

    var isCancelled: Bool { flag.current }
}

/// One libcurl easy handle. Reset after each transfer, which keeps its connection cache.
final class CurlHandle: @unchecked Sendable {
    // Unchecked: the handle is used by one transfer at a time, taken from and returned to
    // `CurlTransport.idle` under its lock.
    let raw: UnsafeMutableRawPointer

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

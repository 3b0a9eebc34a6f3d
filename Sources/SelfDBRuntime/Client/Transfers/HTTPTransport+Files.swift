import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

extension HTTPTransport {
    /// The fallback for transports that cannot stream a body from a file: the whole file is
    /// read into memory and sent with ``send(_:)``.
    public func upload(_ request: URLRequest, fromFile file: URL, progress: TransferProgressHandler?) async throws -> (Data, HTTPURLResponse) {
        let body: Data
        do {
            body = try Data(contentsOf: file)
        } catch {
            throw TransferFileError(path: file.path, reason: "cannot be read (\(error.localizedDescription))")
        }
        var request = request
        request.httpBody = body
        let answer = try await send(request)
        progress?(TransferProgress(bytesDone: Int64(body.count), bytesExpected: Int64(body.count)))
        return answer
    }

    /// The fallback for transports that cannot stream a body into a file: the whole body is
    /// received in memory with ``send(_:)``, then written.
    public func download(_ request: URLRequest, toFile file: URL, progress: TransferProgressHandler?) async throws -> HTTPURLResponse {
        let (body, response) = try await send(request)
        do {
            try body.write(to: file)
        } catch {
            throw TransferFileError(path: file.path, reason: "cannot be written (\(error.localizedDescription))")
        }
        progress?(TransferProgress(bytesDone: Int64(body.count), bytesExpected: Int64(body.count)))
        return response
    }
}

#if !canImport(FoundationNetworking)
extension URLSessionTransport {
    /// `URLSession.upload(for:fromFile:delegate:)`: URLSession reads the file as it sends it.
    /// Progress is read from the task's `countOfBytesSent` (the task comes from the delegate's
    /// `urlSession(_:didCreateTask:)`, iOS 16 / macOS 13 and later).
    public func upload(_ request: URLRequest, fromFile file: URL, progress: TransferProgressHandler?) async throws -> (Data, HTTPURLResponse) {
        guard FileManager.default.isReadableFile(atPath: file.path) else {
            throw TransferFileError(path: file.path, reason: "does not exist or cannot be read")
        }
        let watcher = TaskProgressWatcher(direction: .upload, handler: progress)
        defer { watcher.finish() }
        let (body, response) = try await session.upload(for: request, fromFile: file, delegate: watcher)
        guard let http = response as? HTTPURLResponse else { throw URLError(.badServerResponse) }
        return (body, http)
    }

    /// `URLSession.download(for:delegate:)`: URLSession writes the body to a file of its own
    /// as it arrives, which is then moved to `file`.
    public func download(_ request: URLRequest, toFile file: URL, progress: TransferProgressHandler?) async throws -> HTTPURLResponse {
        let watcher = TaskProgressWatcher(direction: .download, handler: progress)
        defer { watcher.finish() }
        let (location, response) = try await session.download(for: request, delegate: watcher)
        guard let http = response as? HTTPURLResponse else {
            try? FileManager.default.removeItem(at: location)
            throw URLError(.badServerResponse)
        }
        do {
            if FileManager.default.fileExists(atPath: file.path) { try FileManager.default.removeItem(at: file) }
            try FileManager.default.moveItem(at: location, to: file)
        } catch {
            try? FileManager.default.removeItem(at: location)
            throw TransferFileError(path: file.path, reason: "cannot be written (\(error.localizedDescription))")
        }
        return http
    }
}

/// Reports a URLSession task's bytes sent or received to a progress handler, reading the
/// task's counters ten times a second from the moment URLSession creates it.
private final class TaskProgressWatcher: NSObject, URLSessionTaskDelegate, @unchecked Sendable {
    // Unchecked: `state` is only touched under its lock.
    enum Direction { case upload, download }

    private let direction: Direction
    private let state: Locked<(throttle: ProgressThrottle?, task: URLSessionTask?, poller: Task<Void, Never>?)>

    init(direction: Direction, handler: TransferProgressHandler?) {
        self.direction = direction
        self.state = Locked((handler.map(ProgressThrottle.init), nil, nil))
    }

    func urlSession(_ session: URLSession, didCreateTask task: URLSessionTask) {
        let poller = Task { [weak self] in
            while !Task.isCancelled {
                self?.report()
                try? await Task.sleep(for: .milliseconds(100))
            }
        }
        state.withLock { state in
            state.task = task
            state.poller = poller
        }
    }

    /// The last report, and the poller stopped.
    func finish() {
        report()
        state.withLock { $0.poller?.cancel() }
    }

    private func report() {
        state.withLock { state in
            guard let task = state.task, state.throttle != nil else { return }
            let (done, expected) =
                switch direction {
                case .upload: (task.countOfBytesSent, task.countOfBytesExpectedToSend)
                case .download: (task.countOfBytesReceived, task.countOfBytesExpectedToReceive)
                }
            state.throttle?.update(done: done, expected: expected > 0 ? expected : nil)
        }
    }
}
#endif

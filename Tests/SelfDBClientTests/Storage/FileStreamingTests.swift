import FlakyServerSupport
import Foundation
import SelfDB
import SelfDBEmulator
import SelfDBRuntime
import SelfDBTestSupport
import SelfDBTesting
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Files streamed from and to disk through `storage.files.upload(_:filename:fileURL:)` and
/// `download(bucketName:path:to:)`, on every transport, against the emulator (and a real
/// SelfDB when `SELFDB_REAL_URL` names one).
@Suite("files streamed from and to disk")
struct FileStreamingTests {
    typealias TransportKind = TransportFaultTests.TransportKind

    /// A folder of its own for a test's files, removed afterwards.
    static func withFolder(_ body: (URL) async throws -> Void) async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("file-streaming-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        try await body(folder)
    }

    /// A file of `size` pseudo-random bytes, written a MiB at a time.
    static func makeFile(_ url: URL, size: Int, seed: UInt64) throws {
        FileManager.default.createFile(atPath: url.path, contents: nil)
        let handle = try FileHandle(forWritingTo: url)
        defer { try? handle.close() }
        var random = SplitMix64(seed: seed)
        var left = size
        while left > 0 {
            let count = min(left, 1 << 20)
            var words = [UInt64](repeating: 0, count: (count + 7) / 8)
            for index in words.indices { words[index] = random.next() }
            let chunk = words.withUnsafeBytes { Data($0.prefix(count)) }
            try handle.write(contentsOf: chunk)
            left -= count
        }
    }

    /// Whether two files hold the same bytes, compared a MiB at a time.
    static func sameBytes(_ a: URL, _ b: URL) throws -> Bool {
        let (first, second) = (try FileHandle(forReadingFrom: a), try FileHandle(forReadingFrom: b))
        defer {
            try? first.close()
            try? second.close()
        }
        while true {
            let (x, y) = (try first.read(upToCount: 1 << 20) ?? Data(), try second.read(upToCount: 1 << 20) ?? Data())
            if x != y { return false }
            if x.isEmpty { return true }
        }
    }

    static func bucket(_ selfdb: SelfDB) async throws -> BucketResponse {
        try await selfdb.storage.buckets.create(payload: BucketCreate(name: "stream-\(UUID().uuidString.prefix(8).lowercased())"))
    }

    /// The progress reports a transfer made.
    final class Reports: Sendable {
        private let all = Locked<[TransferProgress]>([])
        var values: [TransferProgress] { all.current }
        var handler: TransferProgressHandler { { progress in self.all.withLock { $0.append(progress) } } }
    }

    @Test(
        "a 24 MiB file up and down: the same bytes, progress at least every 1 % or 1 MiB and at the end; a second upload to its path is stored as name (1).ext",
        arguments: Backend.all,
        TransportFaultTests.transports
    )
    func upAndDown(backend: Backend, kind: TransportKind) async throws {
        try await FlakyServer.run(backend) { server in
            let (selfdb, _, _) = try await server.newUser(retry: .none, transport: kind.make())
            let bucket = try await Self.bucket(selfdb)
            try await Self.withFolder { folder in
                let size = 24 << 20
                let source = folder.appendingPathComponent("clip.bin")
                try Self.makeFile(source, size: size, seed: 49)
                let sent = Reports()
                let stored = try await selfdb.storage.files.upload(bucket.id, filename: "clip.bin", fileURL: source, path: "videos/clip.bin", progress: sent.handler)
                #expect(stored.size == Int64(size))
                #expect(stored.path == "videos/clip.bin")
                let again = try await selfdb.storage.files.upload(bucket.id, filename: "clip.bin", fileURL: source, path: "videos/clip.bin")
                #expect(again.path == "videos/clip (1).bin")

                let copy = folder.appendingPathComponent("copy.bin")
                let received = Reports()
                #expect(try await selfdb.storage.files.download(bucketName: bucket.name, path: "videos/clip.bin", to: copy, progress: received.handler) == Int64(size))
                #expect(try Self.sameBytes(source, copy))
                #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted() == ["clip.bin", "copy.bin"], "no partial file left beside it")

                for (reports, direction) in [(sent.values, "upload"), (received.values, "download")] {
                    #expect(reports.last == TransferProgress(bytesDone: Int64(size), bytesExpected: Int64(size)), "\(direction) ends complete")
                    #expect(zip(reports, reports.dropFirst()).allSatisfy { $0.bytesDone < $1.bytesDone }, "\(direction) only moves forward")
                    // URLSession on Linux has no streaming of its own: the fallback reports the end.
                    if kind == .curl {
                        let steps = zip([TransferProgress(bytesDone: 0, bytesExpected: nil)] + reports, reports).map { $1.bytesDone - $0.bytesDone }
                        // Reported as chunks move: a step is 1 % of 24 MiB (under a MiB) and
                        // less than one chunk more.
                        #expect(reports.count >= 90, "\(direction): \(reports.count) reports")
                        #expect(steps.max() ?? 0 <= size / 100 + (1 << 18), "\(direction): a step of \(steps.max() ?? 0) bytes")
                    }
                }
            }
        }
    }

    @Test("a download cancelled midway returns at once; the destination keeps what it held and no partial file is left", arguments: TransportFaultTests.transports)
    func cancelledDownload(kind: TransportKind) async throws {
        try await FlakyServer.run(.emulator) { server in
            let (selfdb, _, _) = try await server.newUser(retry: .none, transport: kind.make())
            let bucket = try await Self.bucket(selfdb)
            try await Self.withFolder { folder in
                let source = folder.appendingPathComponent("big.bin")
                try Self.makeFile(source, size: 32 << 20, seed: 7)
                _ = try await selfdb.storage.files.upload(bucket.id, filename: "big.bin", fileURL: source)
                let destination = folder.appendingPathComponent("kept.bin")
                try Data("what was here".utf8).write(to: destination)
                // The answer is held back, so the cancellation lands while it is on its way.
                server.proxy.add(FaultRule(.delayAnswer(seconds: 5), method: "GET", pathContains: "/storage/files/download"))
                let download = Task { try await selfdb.storage.files.download(bucketName: bucket.name, path: "big.bin", to: destination) }
                try await Task.sleep(for: .milliseconds(300))
                let cancelled = ContinuousClock.now
                download.cancel()
                await #expect(throws: CancellationError.self) { try await download.value }
                #expect(ContinuousClock.now - cancelled < .seconds(3), "returned \(ContinuousClock.now - cancelled) after the cancel")
                #expect(try Data(contentsOf: destination) == Data("what was here".utf8))
                #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted() == ["big.bin", "kept.bin"])
            }
        }
    }

    @Test("an upload cancelled midway (from its own progress) returns at once and leaves no file on the server")
    func cancelledUpload() async throws {
        try await FlakyServer.run(.emulator) { server in
            // Straight to the server: the proxy would hold the whole body before passing it on.
            let (_, direct, _) = try await server.newUser(retry: .none)
            let bucket = try await Self.bucket(direct)
            try await Self.withFolder { folder in
                let size = 64 << 20
                let source = folder.appendingPathComponent("big.bin")
                try Self.makeFile(source, size: size, seed: 8)
                let upload = Locked<Task<FileUploadResponse, any Error>?>(nil)
                let midway: TransferProgressHandler = { progress in
                    if progress.bytesDone > 0, progress.bytesDone < Int64(size) { upload.current?.cancel() }
                }
                let task = Task { try await direct.storage.files.upload(bucket.id, filename: "big.bin", fileURL: source, progress: midway) }
                upload.withLock { $0 = task }
                await #expect(throws: CancellationError.self) { _ = try await task.value }
                // The server sees the body end short and stores nothing.
                try await Task.sleep(for: .milliseconds(500))
                #expect(try await direct.storage.files.list(bucketId: bucket.id).files.isEmpty)
            }
        }
    }

    @Test("bad input: a file that does not exist or is a folder, a destination whose folder does not exist: fileError, nothing sent, nothing left")
    func badInput() async throws {
        try await FlakyServer.run(.emulator) { server in
            let emulator = try #require(server.emulator)
            let (selfdb, _, _) = try await server.newUser(retry: .none)
            let bucket = try await Self.bucket(selfdb)
            try await Self.withFolder { folder in
                let uploadsBefore = emulator.recordedRequests().filter { $0.path == "/storage/files/upload" }.count
                for missing in [folder.appendingPathComponent("missing.bin"), folder] {
                    await #expect(throws: SelfDBError.self) {
                        do {
                            _ = try await selfdb.storage.files.upload(bucket.id, filename: "x.bin", fileURL: missing)
                        } catch let error as SelfDBError {
                            guard case .fileError = error else { throw CancellationError() }
                            throw error
                        }
                    }
                }
                #expect(emulator.recordedRequests().filter { $0.path == "/storage/files/upload" }.count == uploadsBefore, "nothing was sent")

                let source = folder.appendingPathComponent("small.bin")
                try Self.makeFile(source, size: 1000, seed: 1)
                _ = try await selfdb.storage.files.upload(bucket.id, filename: "small.bin", fileURL: source)
                let nowhere = folder.appendingPathComponent("no/such/folder/copy.bin")
                do {
                    _ = try await selfdb.storage.files.download(bucketName: bucket.name, path: "small.bin", to: nowhere)
                    Issue.record("a download into a missing folder succeeded")
                } catch SelfDBError.fileError(let text) {
                    #expect(text.contains("folder"))
                }
                // A file the server does not have: its 404, and nothing written.
                let absent = folder.appendingPathComponent("absent.bin")
                await #expect(throws: SelfDBError.self) { _ = try await selfdb.storage.files.download(bucketName: bucket.name, path: "nope.bin", to: absent) }
                #expect(!FileManager.default.fileExists(atPath: absent.path))
                #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted() == ["small.bin"])
            }
        }
    }

    @Test("the server closes the connection midway through a download: a connection error, the destination kept, no partial file", arguments: Backend.all)
    func cutDownload(backend: Backend) async throws {
        try await FlakyServer.run(backend) { server in
            let (selfdb, _, _) = try await server.newUser(retry: .none)
            let bucket = try await Self.bucket(selfdb)
            try await Self.withFolder { folder in
                let source = folder.appendingPathComponent("cut.bin")
                try Self.makeFile(source, size: 4 << 20, seed: 3)
                _ = try await selfdb.storage.files.upload(bucket.id, filename: "cut.bin", fileURL: source)
                let destination = folder.appendingPathComponent("kept.bin")
                try Data("old".utf8).write(to: destination)
                server.proxy.add(FaultRule(.cutAnswer(fraction: 0.5), method: "GET", pathContains: "/storage/files/download"))
                do {
                    _ = try await selfdb.storage.files.download(bucketName: bucket.name, path: "cut.bin", to: destination)
                    Issue.record("a cut download succeeded")
                } catch SelfDBError.connectionError {
                } catch {
                    Issue.record("a cut download threw \(error)")
                }
                #expect(try Data(contentsOf: destination) == Data("old".utf8))
                #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted() == ["cut.bin", "kept.bin"])
                // With retries, the next attempt gets it whole.
                server.proxy.add(FaultRule(.cutAnswer(fraction: 0.5), method: "GET", pathContains: "/storage/files/download"))
                let retrying = server.client(retry: RetryPolicy(maxAttempts: 3, baseDelay: 0.01))
                try await retrying.auth.login(email: try #require(try await selfdb.auth.me().email), password: "Password123")
                #expect(try await retrying.storage.files.download(bucketName: bucket.name, path: "cut.bin", to: destination) == 4 << 20)
                #expect(try Self.sameBytes(source, destination))
            }
        }
    }

    #if os(Linux)
    @Test("a disk that fills up during a download: the transport stops with the file's error")
    func diskFull() async throws {
        try await FlakyServer.run(.emulator) { server in
            let (selfdb, _, _) = try await server.newUser(retry: .none)
            let bucket = try await Self.bucket(selfdb)
            try await Self.withFolder { folder in
                let source = folder.appendingPathComponent("full.bin")
                try Self.makeFile(source, size: 1 << 20, seed: 4)
                _ = try await selfdb.storage.files.upload(bucket.id, filename: "full.bin", fileURL: source)
                var request = URLRequest(url: server.serverURL.appendingPathComponent("storage/files/download/\(bucket.name)/full.bin"))
                request.setValue(server.apiKey, forHTTPHeaderField: "X-API-Key")
                request.setValue("Bearer \(try #require(await selfdb.apiClient.session?.accessToken))", forHTTPHeaderField: "Authorization")
                // /dev/full answers every write with ENOSPC.
                do {
                    _ = try await CurlTransport().download(request, toFile: URL(fileURLWithPath: "/dev/full"), progress: nil)
                    Issue.record("a download into a full disk succeeded")
                } catch let error as TransferFileError {
                    #expect(error.path == "/dev/full")
                    #expect(error.reason == String(cString: strerror(ENOSPC)))
                }
            }
        }
    }
    #endif
}

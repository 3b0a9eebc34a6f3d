import FlakyServerSupport
import Foundation
import SelfDB
import SelfDBCache
import SelfDBTesting
import Testing

/// Files queued offline in the cache: kept durably, sent when online (after a relaunch too),
/// each stored exactly once, before the rows queued after them.
@Suite("uploads queued in the cache")
struct QueuedUploadTests {
    static func folder() throws -> URL {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("queued-uploads-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        return folder
    }

    static func file(_ folder: URL, _ name: String, size: Int) throws -> URL {
        let url = folder.appendingPathComponent(name)
        try Data((0..<size).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ name.count) }).write(to: url)
        return url
    }

    /// The bucket's files on the server, read directly.
    static func stored(_ direct: SelfDB, _ bucket: BucketResponse) async throws -> [FileResponse] {
        try await direct.storage.files.list(bucketId: bucket.id, pageSize: 100).files.sorted { $0.path < $1.path }
    }

    @Test("three files and a row queued offline: sent once online, the files before the row, each stored once, the cache's copies removed", arguments: Backend.all)
    func offlineQueue(backend: Backend) async throws {
        try await FlakyServer.run(backend) { server in
            try await server.prepareTable(Chore.self)
            let (flaky, direct, user) = try await server.newUser(retry: RetryPolicy(maxAttempts: 2, baseDelay: 0.01))
            let bucket = try await direct.storage.buckets.create(payload: BucketCreate(name: "queued-\(UUID().uuidString.prefix(8).lowercased())"))
            let folder = try Self.folder()
            defer { try? FileManager.default.removeItem(at: folder) }
            let cachePath = folder.appendingPathComponent("cache.sqlite").path
            let cache = try SelfDBCache(selfdb: flaky, path: cachePath)
            _ = try await flaky.tables.data.query(Chore.self).pageSize(1).execute()

            server.proxy.goOffline()
            var queued: [QueuedUpload] = []
            for index in 1...3 {
                let photo = try Self.file(folder, "photo\(index).jpg", size: (2 << 20) + index)
                queued.append(try cache.queueUpload(photo, bucketId: bucket.id, bucketName: bucket.name, filename: "photo\(index).jpg", path: "album/photo\(index).jpg"))
                // The app may delete its own file: the cache kept one.
                try FileManager.default.removeItem(at: photo)
            }
            let post = Chore(id: UUID(), title: "album/photo1.jpg", rank: 1, userId: user.id)
            #expect(try await cache.insert(post) == .pending)
            let offline = await cache.synchronize()
            #expect(offline.uploadsRemaining == 3)
            #expect(offline.remaining == 1, "the row waits for the files")

            try server.proxy.goOnline()
            let online = await cache.synchronize()
            #expect(online.uploaded == 3)
            #expect(online.uploadsRemaining == 0)
            #expect(online.sent == 1)
            let files = try await Self.stored(direct, bucket)
            #expect(files.map(\.path) == ["album/photo1.jpg", "album/photo2.jpg", "album/photo3.jpg"])
            let sizes: [Int64] = [(2 << 20) + 1, (2 << 20) + 2, (2 << 20) + 3]
            #expect(files.map(\.size) == sizes)
            let states: [QueuedUpload.State] = files.map { .uploaded(fileId: $0.id, path: $0.path) }
            #expect(try cache.uploads().map(\.state) == states)
            #expect(try FileManager.default.contentsOfDirectory(atPath: cachePath + ".uploads").isEmpty, "the cache's copies are removed")
            let row = try #require(try await direct.tables.data.stored(post))
            #expect(row.title == "album/photo1.jpg")
            // The files reached the server before the row that names one (the emulator's log).
            if let emulator = server.emulator {
                let log = emulator.recordedRequests().filter { $0.method == "POST" }
                let lastUpload = try #require(log.lastIndex { $0.path == "/storage/files/upload" && $0.status == 201 })
                let rowInsert = try #require(log.lastIndex { $0.path.hasSuffix("/data") && (200..<300).contains($0.status) })
                #expect(lastUpload < rowInsert, "the row went out before a file")
            }
        }
    }

    @Test("an upload whose answer is lost, then a relaunch: settled by looking, stored once, never as name (1).ext", arguments: Backend.all)
    func lostAnswerThenRelaunch(backend: Backend) async throws {
        try await FlakyServer.run(backend) { server in
            let (flaky, direct, _) = try await server.newUser(retry: RetryPolicy(maxAttempts: 2, baseDelay: 0.01))
            let bucket = try await direct.storage.buckets.create(payload: BucketCreate(name: "lost-\(UUID().uuidString.prefix(8).lowercased())"))
            let folder = try Self.folder()
            defer { try? FileManager.default.removeItem(at: folder) }
            let cachePath = folder.appendingPathComponent("cache.sqlite").path
            let video = try Self.file(folder, "clip.mov", size: 3 << 20)
            do {
                let cache = try SelfDBCache(selfdb: flaky, path: cachePath)
                try cache.queueUpload(video, bucketId: bucket.id, bucketName: bucket.name, filename: "clip.mov")
                server.proxy.add(FaultRule(.loseAnswer, method: "POST", pathContains: "/storage/files/upload"))
                let report = await cache.synchronize()
                #expect(report.uploadsRemaining == 1, "an answer lost: the outcome is unknown")
                #expect(report.uploaded == 0)
            }
            #expect(try await Self.stored(direct, bucket).map(\.path) == ["clip.mov"], "the server stored it")

            // The app is killed and launched again: a new cache on the same file.
            let relaunched = try SelfDBCache(selfdb: flaky, path: cachePath)
            let report = await relaunched.synchronize()
            #expect(report.uploaded == 1)
            #expect(report.uploadsRemaining == 0)
            let files = try await Self.stored(direct, bucket)
            #expect(files.map(\.path) == ["clip.mov"], "stored once: \(files.map(\.path))")
            #expect(try relaunched.uploads().first?.state == .uploaded(fileId: try #require(files.first).id, path: "clip.mov"))
        }
    }

    @Test("an upload the server refuses is marked failed, its copy removed, and the rows behind it go out")
    func refusedUpload() async throws {
        try await FlakyServer.run(.emulator) { server in
            try await server.prepareTable(Chore.self)
            let (flaky, direct, user) = try await server.newUser(retry: .none)
            let folder = try Self.folder()
            defer { try? FileManager.default.removeItem(at: folder) }
            let cachePath = folder.appendingPathComponent("cache.sqlite").path
            let cache = try SelfDBCache(selfdb: flaky, path: cachePath)
            let file = try Self.file(folder, "doc.pdf", size: 1000)
            try cache.queueUpload(file, bucketId: UUID(), bucketName: "gone", filename: "doc.pdf")
            let row = Chore(id: UUID(), title: "after a refused upload", rank: 1, userId: user.id)
            _ = try await cache.insert(row)
            let report = await cache.synchronize()
            #expect(report.failedUploads.count == 1)
            #expect(report.sent == 1, "\(report)")
            guard case .failed = try #require(try cache.uploads().first).state else {
                Issue.record("not marked failed")
                return
            }
            #expect(try FileManager.default.contentsOfDirectory(atPath: cachePath + ".uploads").isEmpty)
            #expect(try await direct.tables.data.stored(row) != nil)

            // Bad input: nothing queued.
            #expect(throws: CacheError.self) { try cache.queueUpload(folder.appendingPathComponent("missing.bin"), bucketId: UUID(), bucketName: "b", filename: "m") }
            #expect(throws: CacheError.self) { try cache.queueUpload(folder, bucketId: UUID(), bucketName: "b", filename: "m") }
            #expect(try cache.uploads().count == 1)
        }
    }
}

import Foundation
import SelfDB
import SelfDBRuntime
import Testing

@Suite("buckets and files through the generated client")
struct StorageClientTests {
    @Test func bucketsAndFiles() async throws {
        try await ClientFixture.run { fixture in
            let (owner, _) = try await fixture.newUser("files")
            let (stranger, _) = try await fixture.newUser("peer")
            let name = "bucket-\(UUID().uuidString.prefix(8).lowercased())"
            let bucket = try await owner.storage.buckets.create(payload: BucketCreate(name: name, description: "docs"))
            #expect(!bucket.public)
            #expect(try await owner.storage.buckets.create(payload: BucketCreate(name: name)).id == bucket.id, "a duplicate create returns the existing bucket")
            #expect(try await owner.storage.buckets.count(search: name) == 1)
            #expect(try await owner.storage.buckets.list(limit: 20).contains { $0.id == bucket.id })
            #expect(try await owner.storage.buckets.get(bucket.id).description == "docs")
            await expectError("422 for an invalid bucket name", { if case .validationFailed = $0 { true } else { false } }) {
                _ = try await owner.storage.buckets.create(payload: BucketCreate(name: "Not Valid!"))
            }
            await expectError("403 for someone else's bucket", { if case .permissionDenied = $0 { true } else { false } }) {
                _ = try await stranger.storage.buckets.update(bucket.id, payload: BucketUpdate(public: true))
            }

            let content = Data((0..<2048).map { UInt8($0 % 251) })
            let upload = try await owner.storage.files.upload(bucket.id, filename: "data.bin", data: content, path: "/nested/dir/data.bin", contentType: "application/x-test")
            #expect(upload.success)
            #expect(upload.path == "nested/dir/data.bin")
            #expect(upload.size == 2048)
            let second = try await owner.storage.files.upload(bucket.id, filename: "data.bin", data: Data("x".utf8), path: "nested/dir/data.bin")
            #expect(second.path == "nested/dir/data (1).bin")
            #expect(second.originalPath == "nested/dir/data.bin")

            #expect(try await owner.storage.files.count(bucketId: bucket.id) == 2)
            #expect(try await owner.storage.files.totalCount() >= 2)
            let stats = try await owner.storage.files.stats()
            #expect(stats.totalFiles >= 2)
            let listed = try await owner.storage.files.list(bucketId: bucket.id, pageSize: 50, sortBy: .size, sortOrder: .desc)
            #expect(listed.total == 2)
            #expect(listed.files.first?.size == 2048)

            let file = try await owner.storage.files.get(upload.fileId)
            #expect(file.mimeType == "application/x-test")
            let tagged = try await owner.storage.files.updateMetadata(upload.fileId, metadata: ["tag": "archive", "n": 1])
            #expect(tagged.metadata == ["tag": "archive", "n": 1])

            #expect(try await owner.storage.files.download(bucketName: name, path: upload.path) == content)
            #expect(try await owner.storage.files.download(bucketName: name, path: second.path) == Data("x".utf8), "spaces and parentheses in a path are encoded")
            await expectError("401 for a private file downloaded anonymously", { if case .authenticationError = $0 { true } else { false } }) {
                _ = try await fixture.client().storage.files.download(bucketName: name, path: upload.path)
            }
            await expectError("404 for a missing file", { if case .notFound = $0 { true } else { false } }) {
                _ = try await owner.storage.files.get(UUID())
            }

            try await owner.storage.files.delete(second.fileId)
            #expect(try await owner.storage.files.count(bucketId: bucket.id) == 1)
            try await owner.storage.buckets.delete(bucket.id)
            await expectError("404 after deleting the bucket", { if case .notFound = $0 { true } else { false } }) {
                _ = try await owner.storage.buckets.get(bucket.id)
            }
        }
    }
}

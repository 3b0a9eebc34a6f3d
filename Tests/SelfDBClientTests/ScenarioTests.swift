import Foundation
import SelfDB
import SelfDBRuntime
import Testing

/// The SDK integration scenario end to end: an admin publishes a table and a bucket, a
/// regular user consumes them and manages private resources of their own, then everything is
/// cleaned up.
@Suite("SDK integration scenario")
struct ScenarioTests {
    @Test func adminAndRegularUserWithPublicAndPrivateResources() async throws {
        try await ClientFixture.run { fixture in
            let admin = try await fixture.admin()
            let (user, me) = try await fixture.newUser("scenario")

            let shared = try await admin.tables.create(payload: TableCreate(name: "announcements", tableSchema: ["text": ColumnSchema(type: "text")], public: true))
            try await admin.tables.data.insert(shared.id, data: ["text": "welcome"])
            let publicBucket = try await admin.storage.buckets.create(payload: BucketCreate(name: "public-assets", public: true))
            try await admin.storage.files.upload(publicBucket.id, filename: "logo.txt", data: Data("logo".utf8))

            // The user (and anyone) reads the public table and downloads the public file.
            #expect(try await user.tables.data.fetch(shared.id).data.first?["text"] == "welcome")
            #expect(try await fixture.client().tables.data.fetch(shared.id).total == 1)
            #expect(try await fixture.client().storage.files.download(bucketName: "public-assets", path: "logo.txt") == Data("logo".utf8))

            // The user's own private resources.
            let privateTable = try await user.tables.create(payload: TableCreate(name: "my_notes", tableSchema: ["text": ColumnSchema(type: "text"), "user_id": ColumnSchema(type: "uuid")]))
            try await user.tables.data.insert(privateTable.id, data: ["text": "secret", "user_id": .string(me.id.queryValue)])
            await expectError("anonymous readers are refused", { if case .authenticationError = $0 { true } else { false } }) {
                _ = try await fixture.client().tables.data.fetch(privateTable.id)
            }
            let privateBucket = try await user.storage.buckets.create(payload: BucketCreate(name: "my-files"))
            let file = try await user.storage.files.upload(privateBucket.id, filename: "a.txt", data: Data("a".utf8))
            #expect(try await user.storage.files.download(bucketName: "my-files", path: file.path) == Data("a".utf8))

            // Clean up: the user's resources, then the admin's, then the user.
            try await user.storage.files.delete(file.fileId)
            try await user.storage.buckets.delete(privateBucket.id)
            try await user.tables.delete(privateTable.id)
            try await admin.tables.delete(shared.id)
            let files = try await admin.storage.files.list(bucketId: publicBucket.id)
            for item in files.files { try await admin.storage.files.delete(item.id) }
            try await admin.storage.buckets.delete(publicBucket.id)
            try await user.auth.logout()
            try await admin.auth.users.delete(me.id)
            await expectError("a deleted user cannot sign in", { if case .authenticationError = $0 { true } else { false } }) {
                _ = try await user.auth.login(email: me.email, password: "Password123")
            }
            #expect(try await admin.tables.count() == 0)
            #expect(try await admin.storage.buckets.count() == 0)
            try await admin.auth.logoutAll()
        }
    }
}

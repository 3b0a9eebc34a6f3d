import Foundation
import SelfDB

/// The README demo: the generated SelfDB client doing what an app does, printing each step.
@main
enum Demo {
    @MainActor static func main() async {
        do {
            let target = try await DemoTarget.start()
            do {
                try await run(SelfDB(baseURL: target.baseURL, apiKey: target.apiKey, logger: DemoLogger.logger))
                try await OfflineDemo.run(target)
                try await SyncDemo.run()
                await target.stop()
                print("\nDemo finished.")
            } catch {
                await target.stop()
                throw error
            }
        } catch {
            print("\nDemo failed: \(error)")
            exit(1)
        }
    }

    static func step(_ text: String) {
        print("\n▸ \(text)")
    }

    static func run(_ selfdb: SelfDB) async throws {
        let email = "demo-\(UUID().uuidString.prefix(8).lowercased())@example.com"
        let password = "DemoPass123!"

        step("Sign up \(email)")
        let user = try await selfdb.auth.users.create(payload: UserCreate(email: email, password: password, firstName: "Demo", lastName: "User"))
        print("  created user \(user.id) (\(user.firstName) \(user.lastName), role \(user.role.rawValue))")

        step("Log in")
        let tokens = try await selfdb.auth.login(email: email, password: password)
        print("  got a \(tokens.tokenType) token expiring in \(tokens.expiresIn.map(String.init) ?? "?") s")
        let me = try await selfdb.auth.me()
        print("  auth.me() → \(me.email)")

        step("Create the table of the `Note` table model (from demo-models.yaml)")
        let table = try await selfdb.tables.create(from: Note.self, description: "SelfDB Swift demo")
        print("  table \(table.name) (\(table.id)), columns: \(table.tableSchema.keys.sorted().joined(separator: ", ")), realtime: \(table.realtimeEnabled)")

        step("Insert typed rows")
        let titles = ["Buy milk", "Write the report", "Call Ada", "Milk the cows"]
        for (index, title) in titles.enumerated() {
            let note = try await selfdb.tables.data.insert(Note(id: UUID(), title: title, body: "note \(index)", pinned: index == 1, createdAt: Date(), userId: me.id))
            print("  inserted \(note.title)")
        }

        try await RealtimeDemo.run(selfdb, userID: me.id)

        step("Query typed rows: search \"milk\", sorted by title")
        let milk = try await selfdb.tables.data.query(Note.self).search("milk").sort(.title, .asc).execute()
        for note in milk { print("  \(note.title) — pinned: \(note.pinned == true)") }

        step("The design note's untyped query builder: page 1, 2 rows per page, newest first")
        let page = try await selfdb.tables.data.query(table.id).sort("created_at", .desc).page(1).pageSize(2).execute()
        print("  \(page.data.count) of \(page.total) rows: \(page.data.compactMap { $0["title"]?.stringValue }.joined(separator: ", "))")

        step("Update and delete a row")
        if var first = milk.first {
            first.pinned = true
            let updated = try await selfdb.tables.data.update(first)
            print("  pinned \(updated.title): \(updated.pinned == true)")
            try await selfdb.tables.data.delete(updated)
            print("  deleted \(updated.title); \(try await selfdb.tables.data.query(Note.self).pageSize(100).executePage().total) rows left")
        }

        step("Upload and download a file")
        let bucket = try await selfdb.storage.buckets.create(payload: BucketCreate(name: "demo-\(UUID().uuidString.prefix(8).lowercased())"))
        let content = Data("Hello from SelfDB Swift!\n".utf8)
        let upload = try await selfdb.storage.files.upload(bucket.id, filename: "hello.txt", data: content, path: "docs/hello.txt", contentType: "text/plain")
        print("  uploaded \(upload.path) (\(upload.size) bytes) to bucket \(upload.bucket)")
        let downloaded = try await selfdb.storage.files.download(bucketName: bucket.name, path: upload.path)
        print("  downloaded \(downloaded.count) bytes: \(downloaded == content ? "identical" : "DIFFERENT")")
        guard downloaded == content else { throw SelfDBError.invalidResponse("the downloaded file differs from the upload") }
        let files = try await selfdb.storage.files.list(bucketId: bucket.id)
        print("  the bucket holds \(files.total) file(s)")

        step("Clean up")
        try await selfdb.storage.files.delete(upload.fileId)
        try await selfdb.storage.buckets.delete(bucket.id)
        try await selfdb.tables.delete(table.id)
        print("  deleted the file, the bucket and the table")
        _ = try await selfdb.auth.logout()
        print("  logged out; signed in: \(await selfdb.session != nil)")
    }
}

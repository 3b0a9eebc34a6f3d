import Foundation
import SelfDB

/// The first part of the demo: sign up and log in, the `Note` table, typed rows, realtime,
/// queries, a row updated and deleted, a file uploaded and downloaded, then clean-up.
///
/// It runs on a server it has run on before: `tables.create(from:)` then returns the table an
/// earlier run (or another user) left, whose rows are not this run's to change, so the demo
/// acts only on the rows it wrote and removes what it wrote when it ends.
@MainActor
enum NotesDemo {
    static func run(_ selfdb: SelfDB, target: DemoTarget, parts: DemoParts) async throws {
        let email = "demo-\(UUID().uuidString.prefix(8).lowercased())@example.com"
        let password = "DemoPass123!"

        Demo.step("Sign up \(email)")
        let user = try await selfdb.auth.users.create(payload: UserCreate(email: email, password: password, firstName: "Demo", lastName: "User"))
        print("  created user \(user.id) (\(user.firstName) \(user.lastName), role \(user.role.rawValue))")

        Demo.step("Log in")
        let tokens = try await selfdb.auth.login(email: email, password: password)
        print("  got a \(tokens.tokenType) token expiring in \(tokens.expiresIn.map(String.init) ?? "?") s")
        let me = try await selfdb.auth.me()
        print("  auth.me() → \(me.email)")

        Demo.step("Create the table of the `Note` table model (from demo-models.yaml)")
        let table = try await selfdb.tables.create(from: Note.self, description: "SelfDB Swift demo")
        print("  table \(table.name) (\(table.id)), columns: \(table.tableSchema.keys.sorted().joined(separator: ", ")), realtime: \(table.realtimeEnabled)")
        let cleanup = DemoCleanup(selfdb: selfdb, table: table, userID: me.id)
        if !cleanup.ownsTable {
            print("  it was there already, with \(table.rowCount) row(s) of others: the demo works on the rows it writes and leaves the rest alone")
        }
        do {
            try await work(selfdb, target: target, me: me, cleanup: cleanup, parts: parts)
        } catch {
            Demo.step("Clean up after the failure")
            try? await cleanup.run()
            throw error
        }
        Demo.step("Clean up")
        try await cleanup.run()
        _ = try await selfdb.auth.logout()
        print("  logged out; signed in: \(await selfdb.session != nil)")
    }

    private static func work(_ selfdb: SelfDB, target: DemoTarget, me: UserRead, cleanup: DemoCleanup, parts: DemoParts) async throws {
        Demo.step("Insert typed rows")
        let titles = ["Buy milk", "Write the report", "Call Ada", "Milk the cows"]
        for (index, title) in titles.enumerated() {
            let note = try await selfdb.tables.data.insert(Note(id: UUID(), title: title, body: "note \(index)", pinned: index == 1, createdAt: Date(), userId: me.id))
            cleanup.wrote(note)
            print("  inserted \(note.title)")
        }

        await parts.run("Realtime") {
            try await RealtimeDemo.run(selfdb, target: target, userID: me.id, cleanup: cleanup)
        }

        Demo.step("Query typed rows: search \"milk\", sorted by title")
        let milk = try await selfdb.tables.data.query(Note.self).search("milk").sort(.title, .asc).execute()
        // Only this run's rows: on a shared table the others are not ours to change.
        let mine = milk.filter { $0.userId == me.id }
        for note in mine { print("  \(note.title) — pinned: \(note.pinned == true)") }
        if milk.count > mine.count {
            print("  (and \(milk.count - mine.count) matching note(s) other users wrote)")
        }

        Demo.step("The design note's untyped query builder: page 1, 2 rows per page, newest first")
        let page = try await selfdb.tables.data.query(cleanup.table.id).sort("created_at", .desc).page(1).pageSize(2).execute()
        print("  \(page.data.count) of \(page.total) rows: \(page.data.compactMap { $0["title"]?.stringValue }.joined(separator: ", "))")

        Demo.step("Update and delete a row")
        guard var first = mine.first else { throw SelfDBError.invalidResponse("the notes this run wrote are not in the table") }
        first.pinned = true
        let updated = try await selfdb.tables.data.update(first)
        print("  pinned \(updated.title): \(updated.pinned == true)")
        try await selfdb.tables.data.delete(updated)
        cleanup.removed(updated)
        print("  deleted \(updated.title); \(try await selfdb.tables.data.query(Note.self).pageSize(100).executePage().total) rows left")

        Demo.step("Upload and download a file")
        let bucket = try await selfdb.storage.buckets.create(payload: BucketCreate(name: "demo-\(UUID().uuidString.prefix(8).lowercased())"))
        cleanup.created(bucket: bucket.id)
        let content = Data("Hello from SelfDB Swift!\n".utf8)
        let upload = try await selfdb.storage.files.upload(bucket.id, filename: "hello.txt", data: content, path: "docs/hello.txt", contentType: "text/plain")
        cleanup.uploaded(upload.fileId)
        print("  uploaded \(upload.path) (\(upload.size) bytes) to bucket \(upload.bucket)")
        let downloaded = try await selfdb.storage.files.download(bucketName: bucket.name, path: upload.path)
        print("  downloaded \(downloaded.count) bytes: \(downloaded == content ? "identical" : "DIFFERENT")")
        guard downloaded == content else { throw SelfDBError.invalidResponse("the downloaded file differs from the upload") }
        let files = try await selfdb.storage.files.list(bucketId: bucket.id)
        print("  the bucket holds \(files.total) file(s)")
    }
}

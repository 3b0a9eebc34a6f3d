import Foundation
import SelfDB
import SelfDBCache

/// The offline-first part of the demo: an app that keeps reading and writing through a
/// `SelfDBCache` while the server is down, and catches up when it returns.
///
/// Its notes carry a tag of this run in their body and its views search for it, so on a
/// `Note` table others share (one an earlier run left, say) it shows and changes only its own.
@MainActor
enum OfflineDemo {
    static func run(_ target: DemoTarget) async throws {
        let transport = OutageTransport()
        let selfdb = SelfDB(baseURL: target.baseURL, apiKey: target.apiKey, transport: transport, retryPolicy: .none, logger: DemoLogger.logger)
        let email = "offline-\(UUID().uuidString.prefix(8).lowercased())@example.com"
        _ = try await selfdb.auth.users.create(payload: UserCreate(email: email, password: "DemoPass123!", firstName: "Offline", lastName: "Demo"))
        try await selfdb.auth.login(email: email, password: "DemoPass123!")
        let me = try await selfdb.auth.me()
        let table = try await selfdb.tables.create(from: Note.self, description: "SelfDB Swift offline demo")
        let cleanup = DemoCleanup(selfdb: selfdb, table: table, userID: me.id)
        do {
            try await work(selfdb, target: target, transport: transport, me: me, cleanup: cleanup)
        } catch {
            Demo.step("Clean up after the failure")
            transport.isDown = false
            try? await cleanup.run()
            throw error
        }
        Demo.step("Clean up")
        try await cleanup.run()
        _ = try await selfdb.auth.logout()
    }

    private static func work(_ selfdb: SelfDB, target: DemoTarget, transport: OutageTransport, me: UserRead, cleanup: DemoCleanup) async throws {
        let tag = "offline-\(UUID().uuidString.prefix(8).lowercased())"
        let mine = Note.query().search(tag).sort(.createdAt, .asc)
        let cacheDirectory = FileManager.default.temporaryDirectory.appendingPathComponent("selfdb-offline-demo-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: cacheDirectory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: cacheDirectory) }
        let cache = try SelfDBCache(selfdb: selfdb, path: cacheDirectory.appendingPathComponent("cache.sqlite").path, logger: DemoLogger.orSilent)
        let feed = cache.fetcher(Note.self, .all(view: "my-notes", query: mine))

        Demo.step("Offline-first: load my notes through the cache (SelfDBCache)")
        for title in ["Plan the trip", "Pack the bags", "Book the hotel"] {
            let note = Note(id: UUID(), title: title, body: tag, pinned: false, createdAt: Date(), userId: me.id)
            try await cache.insert(note, into: "my-notes", at: .append)
            cleanup.wrote(note)
        }
        try await feed.setup()
        show(feed)

        // A generated model that is not a table: buckets, through the storage endpoints.
        let prefix = "demo-\(UUID().uuidString.prefix(8).lowercased())"
        await cache.register(
            BucketResponse.self,
            mutations: CacheMutations(
                insert: { try await selfdb.storage.buckets.create(payload: BucketCreate(name: $0.name, public: $0.public, description: $0.description)) },
                delete: { try await selfdb.storage.buckets.delete($0.id) }
            )
        )
        let buckets = cache.fetcher(
            BucketResponse.self,
            .pages(view: "my-buckets") { page, size in
                try await selfdb.storage.buckets.list(skip: (page - 1) * size, limit: size, search: prefix)
            }
        )
        try await buckets.setup()
        print("  and my buckets (a generated model that is not a table): \(buckets.rows.count)")

        Demo.step("The server goes away")
        if target.canStopServer {
            await target.stopServer()
            print("  stopped the embedded emulator (its port now refuses connections)")
        } else {
            transport.isDown = true
            print("  SIMULATED outage: this is a real server, so the demo's transport now refuses every connection")
        }
        let reopened = cache.fetcher(Note.self, .all(view: "my-notes", query: mine))
        do {
            try await reopened.setup()
        } catch let error as CacheError {
            print("  refresh failed as expected: \(error.userFriendlyMessage)")
        }
        print("  the view is still readable from the cache:")
        show(reopened)

        Demo.step("Keep working offline: insert, update and delete")
        let written = Note(id: UUID(), title: "Written on the plane", body: "\(tag): no network here", pinned: true, createdAt: Date(), userId: me.id)
        print("  insert → \(try await cache.insert(written, into: "my-notes", at: .append))")
        cleanup.wrote(written)
        var renamed = feed.rows[0]
        renamed.title = "Plan the trip (dates fixed)"
        print("  update → \(try await cache.update(renamed))")
        let dropped = feed.rows[1]
        print("  delete → \(try await cache.delete(dropped))")
        cleanup.removed(dropped)
        try reopened.refreshFromCache()
        show(reopened)
        let localBucket = BucketResponse(id: UUID(), name: "\(prefix)-photos", public: false, description: "made offline", ownerId: me.id, createdAt: Date())
        print("  create bucket → \(try await cache.insert(localBucket, into: "my-buckets", at: .append)) (provisional id \(localBucket.id.uuidString.prefix(8))…)")
        print("  \(try cache.pendingMutationCount()) mutation(s) wait in the cache file")

        Demo.step("The server is back: replay the queue")
        if target.canStopServer {
            try await target.restartServer()
            print("  restarted the emulator on the same port with the same data")
        } else {
            transport.isDown = false
            print("  the transport accepts connections again")
        }
        let report = await cache.synchronize()
        print("  sent \(report.sent), refused \(report.rejected.count), still queued \(report.remaining)")
        try await reopened.reload()
        show(reopened)
        let server = try await selfdb.tables.data.query(Note.self).search(tag).sort(.createdAt, .asc).execute()
        let converged = server == reopened.rows
        print("  the server holds \(server.count) notes; cache and server agree: \(converged)")
        guard converged else { throw SelfDBError.invalidResponse("the cache did not converge with the server") }
        try await buckets.reload()
        let serverBuckets = try await selfdb.storage.buckets.list(search: prefix)
        let cachedBucket = buckets.rows.first { $0.name == localBucket.name }
        print("  bucket \(localBucket.name): the server gave it id \(serverBuckets.first?.id.uuidString.prefix(8) ?? "none")…, the cache holds \(cachedBucket?.id.uuidString.prefix(8) ?? "none")…")
        guard let cachedBucket, serverBuckets.map(\.id) == [cachedBucket.id] else {
            throw SelfDBError.invalidResponse("the cached bucket did not take the server's id")
        }
        cleanup.created(bucket: cachedBucket.id)
        try await cache.delete(cachedBucket)
        // Online, the cache sends the delete at once: the bucket is gone from the server too.
        if try await selfdb.storage.buckets.list(search: prefix).isEmpty {
            cleanup.removed(bucket: cachedBucket.id)
            print("  deleted bucket \(cachedBucket.name) through the cache; the server no longer has it")
        }
    }

    private static func show(_ fetcher: CachedFetcher<Note>) {
        for item in fetcher.items {
            let mark = item.state == .normal ? "" : "  [\(item.state.rawValue)]"
            print("    • \(item.row.title)\(mark)")
        }
    }
}

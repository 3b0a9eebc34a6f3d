import CachedData
import CachedDataTestSupport
import Foundation
import Testing

/// Runs the note's own code (`Post`, `FeedViewModel`, `PostDetailViewModel`, `PostActions`)
/// against the in-test `APIClient`. Serialized: the note's API calls are static, so its state
/// is global.
@Suite("the note's Post example runs as written", .serialized)
struct NoteExampleTests {
    /// Three posts, newest first; the API pages them two at a time.
    static func seed() -> [Post] {
        (1...3).map { index in
            var post = Post()
            post.title = "post \(index)"
            post.content = "content \(index)"
            return post
        }
    }

    static func configure() throws -> [Post] {
        let folder = try temporaryFolder()
        try CachedData.configure(databasePath: folder.appendingPathComponent("cache.sqlite").path)
        let posts = seed()
        APIClient.reset(posts: posts)
        return posts
    }

    @Test func feedLoadsPagesAndRefreshes() async throws {
        let posts = try Self.configure()
        let feed = FeedViewModel(userId: "u1")
        #expect(feed.fetcher.state == .initializing)
        await feed.loadFeed()
        #expect(feed.fetcher.items.map(\.id) == posts.prefix(2).map(\.id))
        #expect(feed.fetcher.hasNext)
        #expect(feed.fetcher.state == .idle)
        await feed.loadMore()
        #expect(feed.fetcher.items.map(\.id) == posts.map(\.id))
        #expect(!feed.fetcher.hasNext)
        await feed.loadMore()  // no next page: no call
        #expect(APIClient.calls == ["fetch:first", "fetch:2"])
        await feed.refresh()
        #expect(feed.fetcher.items.map(\.id) == posts.prefix(2).map(\.id))
        #expect(feed.fetcher.items.allSatisfy { $0.caState == .normal })
    }

    @Test func mutationsThroughTheDependencyHandlers() async throws {
        let posts = try Self.configure()
        let feed = FeedViewModel(userId: "u1")
        await feed.loadFeed()
        let actions = PostActions(userId: "u1", fetcher: feed.fetcher)

        await actions.createPost(title: "Hello", content: "first words")
        #expect(APIClient.calls.contains("create:Hello"))
        // Shown at once as `.inserting`, then `.normal` once the fetcher has re-read the cache.
        #expect(try await eventually { feed.fetcher.items.first?.title == "Hello" && feed.fetcher.items.first?.caState == .normal })

        var post = try #require(feed.fetcher.items.first { $0.id == posts[0].id })
        await actions.updatePost(&post, newTitle: "renamed")
        #expect(post.title == "renamed")
        #expect(APIClient.state.withLock { $0.posts.first { $0.id == posts[0].id }?.title } == "renamed")
        // `.refresh` of the feed: it refetches and shows the server's list.
        #expect(try await eventually { feed.fetcher.items.contains { $0.id == posts[0].id && $0.title == "renamed" } })

        await actions.deletePost(post)
        #expect(APIClient.calls.contains("delete:\(post.idString)"))
        #expect(try await eventually { !feed.fetcher.items.contains { $0.id == post.id } })
    }

    @Test func aRefusedMutationIsRolledBack() async throws {
        let posts = try Self.configure()
        let feed = FeedViewModel(userId: "u1")
        await feed.loadFeed()
        let actions = PostActions(userId: "u1", fetcher: feed.fetcher)
        APIClient.state.withLock { $0.refusing = true }

        await actions.createPost(title: "refused", content: "")
        #expect(try await eventually { feed.fetcher.items.map(\.id) == posts.prefix(2).map(\.id) })
        var post = try #require(feed.fetcher.items.first)
        await actions.updatePost(&post, newTitle: "refused too")
        #expect(try await eventually { feed.fetcher.items.first?.title == posts[0].title })
        await actions.deletePost(post)
        #expect(try await eventually { feed.fetcher.items.map(\.id) == posts.prefix(2).map(\.id) && feed.fetcher.items.allSatisfy { $0.caState == .normal } })
    }

    @Test func theNotesPostTreatsOfflineAsARefusal() async throws {
        // The note's mutations turn every error into `.failed` (`try?`), so an offline insert
        // is rolled back; items that want it kept throw `.caught(error)` instead (see Memo).
        _ = try Self.configure()
        let feed = FeedViewModel(userId: "u1")
        await feed.loadFeed()
        APIClient.state.withLock { $0.offline = true }
        await PostActions(userId: "u1", fetcher: feed.fetcher).createPost(title: "offline", content: "")
        #expect(try await eventually { !feed.fetcher.items.contains { $0.title == "offline" } })
        #expect(try CachedData.pendingMutationCount() == 0)
    }

    @Test func detailFetchesOneItemFromWhicheverPageHasIt() async throws {
        let posts = try Self.configure()
        let detail = PostDetailViewModel(postId: posts[2].idString)
        #expect(detail.optionalPost == nil)
        #expect(detail.post.title == "")  // an empty Post() until loaded
        await detail.load()
        #expect(detail.post.id == posts[2].id)
        #expect(detail.optionalPost?.title == "post 3")
        #expect(APIClient.calls == ["fetch:first", "fetch:2"])

        let missing = PostDetailViewModel(postId: UUID().uuidString)
        await missing.load()
        #expect(missing.optionalPost == nil)
    }

    @Test func advancedSnippets() async throws {
        let posts = try Self.configure()
        let feed = FeedViewModel(userId: "u1")
        await feed.loadFeed()
        var actions = PostActions(userId: "u1", fetcher: feed.fetcher)

        try await actions.synchronizeViews(feed.fetcher.items[0])
        #expect(APIClient.calls.filter { $0.hasPrefix("update:") }.count == 2)
        // The first update's `.refresh` reloads the live feed (the other two name a view no
        // fetcher shows): let that reload land before counting calls.
        #expect(try await eventually { APIClient.calls.filter { $0.hasPrefix("fetch:") }.count == 2 })

        // Cache-only: a second fetcher of the same view reads the cache and calls nothing.
        let before = APIClient.calls.count
        let cached = PostActions(userId: "u1", fetcher: CAFetcher(.fetchAll(viewId: "feed-u1", allPages: false), itemType: Post.self, params: Post.Params(userId: "u1")))
        try await cached.loadFromCacheOnly()
        #expect(cached.fetcher.items.map(\.id) == feed.fetcher.items.map(\.id))
        try await cached.fetcher.reload()  // cache-only: reload does nothing
        #expect(APIClient.calls.count == before)

        // The filter hides posts older than a week.
        APIClient.state.withLock { $0.posts[1].createdAt = Date().addingTimeInterval(-30 * 24 * 60 * 60) }
        let recent = actions.recentPostsFetcher()
        try await recent.setup()
        #expect(recent.items.map(\.id) == [posts[0].id])

        #expect(await actions.firstLoadedCount() == 2)
        #expect(actions.insertPositions.count == 5)

        APIClient.state.withLock { $0.offline = true }
        await actions.reloadShowingErrors()
        #expect(actions.alerts == ["You are offline. Showing what is saved on this device."])
        #expect(feed.fetcher.items.count == 2, "the cached items stay shown")
    }
}

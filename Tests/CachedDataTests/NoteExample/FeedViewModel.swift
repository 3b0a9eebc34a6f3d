import CachedData
import Observation

// "2. Create a Fetcher" and "6. Fetching Single Items" of the note, as written; only the
// SwiftUI import is conditional (Linux has no SwiftUI), and Observation is imported for
// `@Observable` there (SwiftUI re-exports it on Apple platforms).
#if canImport(SwiftUI)
import SwiftUI
#endif

@Observable
class FeedViewModel {
    let fetcher: CAFetcher<Post>

    init(userId: String) {
        // Fetch all posts for a user's feed
        self.fetcher = CAFetcher(
            .fetchAll(viewId: "feed-\(userId)", allPages: false),
            itemType: Post.self,
            params: Post.Params(userId: userId)
        )
    }

    func loadFeed() async {
        do {
            try await fetcher.setup()
        } catch {
            print("Failed to load feed: \(error)")
        }
    }

    func loadMore() async {
        guard fetcher.hasNext else { return }

        do {
            try await fetcher.load()
        } catch {
            print("Failed to load more: \(error)")
        }
    }

    func refresh() async {
        do {
            try await fetcher.reload()
        } catch {
            print("Failed to refresh: \(error)")
        }
    }
}

class PostDetailViewModel {
    let fetcher: CAFetcher<Post>

    init(postId: String) {
        self.fetcher = CAFetcher(
            .fetchOne(itemId: postId),
            itemType: Post.self,
            params: Post.Params()
        )
    }

    var post: Post {
        fetcher.item  // Returns the post or an empty initialized instance
    }

    var optionalPost: Post? {
        fetcher.optionalItem  // Returns nil if not found
    }

    func load() async {
        try? await fetcher.setup()
    }
}

// "5. Performing Mutations with Optimistic Updates" and the snippets of "Advanced Features",
// as written, inside a type that supplies the `userId`, `fetcher` and `showAlert` they use.
import CachedData
import CachedDataDependencies
import Dependencies
import Foundation

struct PostActions {
    let userId: String
    let fetcher: CAFetcher<Post>
    var alerts: [String] = []

    @Dependency(\.caHandlers) var handlers

    // Update a post
    func updatePost(_ post: inout Post, newTitle: String) async {
        post.title = newTitle

        do {
            try await handlers.update(
                post,
                action: .action(.refresh, viewId: "feed-\(userId)")
            )
        } catch {
            print("Update failed: \(error.userFriendlyMessage)")
        }
    }

    // Insert a new post
    func createPost(title: String, content: String) async {
        var newPost = Post()
        newPost.title = title
        newPost.content = content

        do {
            try await handlers.insert(
                newPost,
                action: .action(.prepend, viewId: "feed-\(userId)")
            )
        } catch {
            print("Insert failed: \(error.userFriendlyMessage)")
        }
    }

    // Delete a post
    func deletePost(_ post: Post) async {
        do {
            try await handlers.delete(post)
        } catch {
            print("Delete failed: \(error.userFriendlyMessage)")
        }
    }

    // Cross-View Synchronization
    func synchronizeViews(_ post: Post) async throws {
        // Update will reload all other views with matching item type
        try await handlers.update(post, action: .action(.refresh))

        // Update specific view only
        try await handlers.update(post, action: .action(.refresh, viewId: "feed-123"))

        // Reload programmatically
        handlers.reload(forType: Post.self, viewId: "feed-123")
    }

    // Cache-Only Mode
    func loadFromCacheOnly() async throws {
        try await fetcher.setup(cacheOnly: true)
    }

    // Custom Item Filtering
    func recentPostsFetcher() -> CAFetcher<Post> {
        let fetcher = CAFetcher(
            .fetchAll(viewId: "posts", allPages: false),
            itemType: Post.self,
            params: Post.Params(),
            itemFilter: { post in
                // Only show posts from last 7 days
                post.createdAt > Date().addingTimeInterval(-7 * 24 * 60 * 60)
            }
        )
        return fetcher
    }

    // Reactive Value Streams (the async half; the Combine half is below, where Combine exists)
    func firstLoadedCount() async -> Int? {
        // Using async/await
        for await value in fetcher.asyncFetchedValue {
            // Handle value changes
            if case .fetched(let items) = value { return items.count }
            if case .empty = value { return 0 }
        }
        return nil
    }

    // Insert Position Strategies
    var insertPositions: [CAInsertViewAction] {
        [
            // Add to beginning of list
            .action(.prepend, viewId: "feed"),

            // Add to end of list
            .action(.append, viewId: "feed"),

            // Insert before a specific item
            .action(.insertBefore(id: existingPostId), viewId: "feed"),

            // Insert after a specific item
            .action(.insertAfter(id: existingPostId), viewId: "feed"),

            // No view update
            .action(.noAction),
        ]
    }
    var existingPostId: String { "p-1" }

    // Error Handling
    mutating func reloadShowingErrors() async {
        do {
            try await fetcher.reload()
        } catch let error as CAFetchError {
            if error.isCancellationError {
                // Handle cancellation
            } else {
                // Show error.userFriendlyMessage to user
                showAlert(error.userFriendlyMessage)
            }
        }
    }

    mutating func showAlert(_ message: String) {
        alerts.append(message)
    }
}

#if canImport(Combine)
import Combine

extension PostActions {
    // Using Combine
    func subscribe() -> AnyCancellable {
        fetcher.fetchedValuePublisher
            .sink { value in
                switch value {
                case .initial:
                    print("Not loaded yet")
                case .empty:
                    print("No items found")
                case .fetched(let items):
                    print("Loaded \(items.count) items")
                }
            }
    }
}
#endif

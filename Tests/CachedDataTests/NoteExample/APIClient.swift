import Foundation
import SelfDBRuntime

/// The in-test API the note's `Post` calls (`APIClient.fetchPosts` and friends), with the
/// switches the tests need. The note's calls are static, so this state is global: the suites
/// that use `Post` are serialized (`NoteExampleTests`).
enum APIClient {
    struct PostsResponse {
        var posts: [Post]
        var hasNext: Bool
        var endCursor: String?
    }

    struct MutationResponse {
        var success: Bool
    }

    struct State {
        var posts: [Post] = []
        var offline = false
        var refusing = false
        var pageSize = 2
        var calls: [String] = []
    }

    static let state = Locked(State())

    /// Starts over with these posts (newest first), online.
    static func reset(posts: [Post]) {
        state.withLock { $0 = State(posts: posts) }
    }

    static var calls: [String] { state.withLock { $0.calls } }

    static func fetchPosts(userId: String?, cursor: String?) async throws -> PostsResponse {
        try state.withLock { state in
            if state.offline { throw URLError(.notConnectedToInternet) }
            state.calls.append("fetch:\(cursor ?? "first")")
            let start = cursor.flatMap(Int.init) ?? 0
            let page = Array(state.posts.dropFirst(start).prefix(state.pageSize))
            let end = start + page.count
            let more = end < state.posts.count
            return PostsResponse(posts: page, hasNext: more, endCursor: more ? String(end) : nil)
        }
    }

    static func updatePost(id: String, title: String, content: String) async throws -> MutationResponse {
        try mutate("update:\(title)") { posts in
            guard let index = posts.firstIndex(where: { $0.idString == id }) else { return false }
            posts[index].title = title
            posts[index].content = content
            return true
        }
    }

    static func createPost(title: String, content: String) async throws -> MutationResponse {
        try mutate("create:\(title)") { posts in
            var post = Post()
            post.title = title
            post.content = content
            posts.insert(post, at: 0)
            return true
        }
    }

    static func deletePost(id: String) async throws -> MutationResponse {
        try mutate("delete:\(id)") { posts in
            let before = posts.count
            posts.removeAll { $0.idString == id }
            return posts.count < before
        }
    }

    private static func mutate(_ call: String, _ body: (inout [Post]) -> Bool) throws -> MutationResponse {
        try state.withLock { state in
            if state.offline { throw URLError(.notConnectedToInternet) }
            state.calls.append(call)
            if state.refusing { return MutationResponse(success: false) }
            return MutationResponse(success: body(&state.posts))
        }
    }
}

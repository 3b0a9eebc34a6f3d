// The README's `Post`, as ../shared/seeds/cached-data.md writes it ("1. Define Your Data
// Model" and "4. Implementing Mutations"), unchanged: it must compile and run as written.
import CachedData
import Foundation

struct Post: CAItem {
    // MARK: - Properties
    let id: UUID
    var title: String
    var content: String
    var createdAt: Date
    var caState: CAItemState = .normal

    var idString: String { id.uuidString }

    // MARK: - Associated Types
    struct PageInfo: CAItemPageInfo {
        let hasNext: Bool
        let endCursor: String?
    }

    struct Params: CAItemParams {
        var userId: String?
        var cursor: String?

        func setEndCursor(_ cursor: String?) -> Self {
            var copy = self
            copy.cursor = cursor
            return copy
        }
    }

    // MARK: - CAItem Requirements
    static var typeName: String { "Post" }

    init() {
        self.id = UUID()
        self.title = ""
        self.content = ""
        self.createdAt = Date()
    }

    // Convert to cache storage format
    func toCacheItem(state: CAItemState) -> StoredCacheItem {
        let encoder = JSONEncoder()
        let jsonData = try! encoder.encode(self)
        let jsonString = String(data: jsonData, encoding: .utf8)!

        return StoredCacheItem(
            id: idString,
            type_name: Self.typeName,
            created_at: Date(),
            json_string: jsonString,
            state: state
        )
    }

    // Restore from cache
    init(fromCacheJSONString string: String, state: CAItemState) {
        let decoder = JSONDecoder()
        let data = string.data(using: .utf8)!
        var decoded = try! decoder.decode(Self.self, from: data)
        decoded.caState = state
        self = decoded
    }

    // Fetch from remote API
    static func fetch(params: Params) async throws -> CAFetchResult<Post, PageInfo> {
        // Your network request implementation
        let response = try await APIClient.fetchPosts(userId: params.userId, cursor: params.cursor)

        return CAFetchResult(
            items: response.posts,
            pageInfo: PageInfo(hasNext: response.hasNext, endCursor: response.endCursor)
        )
    }
}

extension Post: CAMutableItem {
    func update() async throws(CAMutationError) {
        guard
            let response = try? await APIClient.updatePost(
                id: idString,
                title: title,
                content: content
            )
        else {
            throw .failed
        }

        guard response.success else {
            throw .failed
        }
    }

    func insert() async throws(CAMutationError) {
        guard
            let response = try? await APIClient.createPost(
                title: title,
                content: content
            )
        else {
            throw .failed
        }

        guard response.success else {
            throw .failed
        }
    }

    func delete() async throws(CAMutationError) {
        guard let response = try? await APIClient.deletePost(id: idString) else {
            throw .failed
        }

        guard response.success else {
            throw .failed
        }
    }
}

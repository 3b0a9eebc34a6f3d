import CachedData
import Foundation

/// A CachedData item written the way the README recommends for offline work: its mutations
/// throw `.caught` with the transport's error when the server cannot be reached (so they stay
/// pending), and `.failed` when the server refuses. It talks to the ``MemoServer`` named in
/// its `server` field, so tests can each have their own server and run in parallel.
public struct Memo: CAMutableItem {
    public var id: String
    public var text: String
    public var server: String
    public var caState: CAItemState = .normal

    public var idString: String { id }

    public struct PageInfo: CAItemPageInfo, Hashable {
        public var hasNext: Bool
        public var endCursor: String?
    }

    public struct Params: CAItemParams, Hashable {
        public var server: String
        public var cursor: String?
        public var pageSize: Int

        public init(server: String, cursor: String? = nil, pageSize: Int = 2) {
            self.server = server
            self.cursor = cursor
            self.pageSize = pageSize
        }

        public func setEndCursor(_ cursor: String?) -> Self {
            var copy = self
            copy.cursor = cursor
            return copy
        }
    }

    public static var typeName: String { "Memo" }

    public init(id: String, text: String, server: String) {
        self.id = id
        self.text = text
        self.server = server
    }

    public init() {
        self.init(id: "", text: "", server: "")
    }

    public func toCacheItem(state: CAItemState) -> StoredCacheItem {
        let json = (try? JSONEncoder().encode(self)).map { String(decoding: $0, as: UTF8.self) } ?? "{}"
        return StoredCacheItem(id: idString, type_name: Self.typeName, created_at: Date(), json_string: json, state: state)
    }

    public init(fromCacheJSONString string: String, state: CAItemState) {
        self = (try? JSONDecoder().decode(Memo.self, from: Data(string.utf8))) ?? Memo()
        caState = state
    }

    public static func fetch(params: Params) async throws -> CAFetchResult<Memo, PageInfo> {
        try await MemoServer.named(params.server).page(after: params.cursor, size: params.pageSize)
    }

    public func insert() async throws(CAMutationError) {
        try await MemoServer.named(server).mutate("insert", self)
    }

    public func update() async throws(CAMutationError) {
        try await MemoServer.named(server).mutate("update", self)
    }

    public func delete() async throws(CAMutationError) {
        try await MemoServer.named(server).mutate("delete", self)
    }
}

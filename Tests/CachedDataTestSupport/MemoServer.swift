import CachedData
import Foundation
import SelfDBRuntime

/// An in-process server of memos with switches: offline (every call throws a `URLError`),
/// refusing (mutations throw `.failed`), holding fetches until released. It records every
/// call, so tests can count what reached it.
public final class MemoServer: Sendable {
    private struct State {
        var memos: [Memo] = []
        var offline = false
        var refusing = false
        var writesOffline = false
        var failing = false
        var holding = false
        var log: [String] = []
        var fetches = 0
    }

    private static let registry = Locked<[String: MemoServer]>([:])

    /// The server's name, which memos and params carry.
    public let name: String
    private let state = Locked(State())

    /// A new server, registered under a fresh name (or `name`).
    public init(name: String = UUID().uuidString, memos texts: [String] = []) {
        self.name = name
        state.withLock { state in
            state.memos = texts.enumerated().map { Memo(id: "m\($0.offset + 1)", text: $0.element, server: name) }
        }
        Self.registry.withLock { $0[name] = self }
    }

    /// The server called `name`; an unknown name is a server that cannot be reached.
    static func named(_ name: String) -> MemoServer {
        registry.withLock { registry in
            if let server = registry[name] { return server }
            let server = MemoServer(unregistered: name)
            server.offline = true
            return server
        }
    }

    private init(unregistered name: String) {
        self.name = name
    }

    // MARK: Switches and records

    /// Every call throws `URLError(.notConnectedToInternet)`.
    public var offline: Bool {
        get { state.withLock { $0.offline } }
        set { state.withLock { $0.offline = newValue } }
    }

    /// Mutations (only) throw `.caught(URLError(.timedOut))`: fetches work, writes do not.
    public var writesOffline: Bool {
        get { state.withLock { $0.writesOffline } }
        set { state.withLock { $0.writesOffline = newValue } }
    }

    /// Fetches throw ``Failure`` (the app's own error, not a transport one).
    public var failing: Bool {
        get { state.withLock { $0.failing } }
        set { state.withLock { $0.failing = newValue } }
    }

    /// The error a failing fetch throws.
    public struct Failure: LocalizedError {
        public var errorDescription: String? { "The memo service failed." }
    }

    /// Mutations throw `.failed`.
    public var refusing: Bool {
        get { state.withLock { $0.refusing } }
        set { state.withLock { $0.refusing = newValue } }
    }

    /// Fetches wait (cancellably) until this is false again.
    public var holding: Bool {
        get { state.withLock { $0.holding } }
        set { state.withLock { $0.holding = newValue } }
    }

    /// The mutations the server accepted, as "kind:id".
    public var log: [String] { state.withLock { $0.log } }
    /// How many fetches reached the server.
    public var fetches: Int { state.withLock { $0.fetches } }
    /// The memos, in server order.
    public var memos: [Memo] { state.withLock { $0.memos } }

    /// Changes the server's data behind the cache's back (another device's edit).
    public func edit(_ body: (inout [Memo]) -> Void) {
        state.withLock { body(&$0.memos) }
    }

    /// A memo of this server.
    public func memo(_ id: String, _ text: String) -> Memo {
        Memo(id: id, text: text, server: name)
    }

    // MARK: Endpoints

    func page(after cursor: String?, size: Int) async throws -> CAFetchResult<Memo, Memo.PageInfo> {
        while holding { try await Task.sleep(for: .milliseconds(5)) }
        if offline { throw URLError(.notConnectedToInternet) }
        if failing { throw Failure() }
        return state.withLock { state in
            state.fetches += 1
            let start = cursor.flatMap(Int.init) ?? 0
            let slice = Array(state.memos.dropFirst(start).prefix(size))
            let end = start + slice.count
            let more = end < state.memos.count
            return CAFetchResult(items: slice, pageInfo: Memo.PageInfo(hasNext: more, endCursor: more ? String(end) : nil))
        }
    }

    func mutate(_ kind: String, _ memo: Memo) async throws(CAMutationError) {
        if offline { throw .caught(URLError(.notConnectedToInternet)) }
        if writesOffline { throw .caught(URLError(.timedOut)) }
        var memo = memo
        memo.caState = .normal
        let refusal: CAMutationError? = state.withLock { state in
            if state.refusing { return .failed }
            switch kind {
            case "insert":
                state.memos.insert(memo, at: 0)
            case "update":
                guard let index = state.memos.firstIndex(where: { $0.id == memo.id }) else { return .noAffectedRows }
                state.memos[index].text = memo.text
            default:
                guard let index = state.memos.firstIndex(where: { $0.id == memo.id }) else { return .noAffectedRows }
                state.memos.remove(at: index)
            }
            state.log.append("\(kind):\(memo.id)")
            return nil
        }
        if let refusal { throw refusal }
    }
}

import Foundation
import SelfDBRuntime
import Testing

@testable import Synchro

/// The rows of pull pages, rebuild pages and push answers are read from the parsed tree by
/// hand (`TreeReading`): each reader takes exactly what the generated decoding takes, and
/// gives up where that decoding would fail (its caller then decodes the general way).
@Suite("Protocol 2: rows read from the tree")
struct TreeReadingTests {
    /// Every variant of one member: absent, null, and values of each kind.
    static let variants: [JSONValue?] = [
        nil, .null, .string("text"), .string(""), .integer(3), .integer(-9_223_372_036_854_775_808), .number(3.0), .number(3.5),
        .number(1e20), .bool(true), .array([]), .array([.string("a")]), .object([:]), .object(["id": .string("k")]),
        .object(["id": .integer(1)]), .object(["title": .string("t"), "n": .null, "nested": .array([.integer(1)])]),
    ]

    static let change: [String: JSONValue] = [
        "scope": "user:1", "table": "tasks", "op": "upsert", "pk": ["id": "k"], "row": ["id": "k", "title": "t"],
        "row_checksum": .integer(42), "server_version": "2026-01-01T00:00:00.000Z",
    ]

    static let record: [String: JSONValue] = [
        "table": "tasks", "pk": ["id": "k"], "row": ["id": "k"], "row_checksum": .integer(-7), "server_version": "v",
    ]

    static let accepted: [String: JSONValue] = [
        "mutation_id": "m", "table": "tasks", "pk": ["id": "k"], "status": "applied", "server_row": ["id": "k"], "server_version": "v",
    ]

    /// Each member of `base` set to each variant, an unknown member, and not an object at all.
    static func cases(_ base: [String: JSONValue]) -> [JSONValue] {
        var cases: [JSONValue] = [.object(base), .null, .array([.object(base)]), .string("x")]
        for name in base.keys.sorted() + ["unlisted"] {
            for variant in variants {
                var object = base
                object[name] = variant
                cases.append(.object(object))
            }
        }
        return cases
    }

    static func agree<T: Decodable & Equatable>(_ type: T.Type, _ base: [String: JSONValue], _ read: (JSONValue) -> T?) {
        for value in cases(base) {
            let general = try? T(from: JSONTreeDecoder(value: value))
            #expect(read(value) == general, "\(type) from \(value)")
        }
    }

    @Test func changeRecordsAsTheGeneratedDecodingReadsThem() {
        Self.agree(ChangeRecord.self, Self.change, ChangeRecord.init(tree:))
        var unknown = Self.change
        unknown["op"] = "truncate"
        #expect(ChangeRecord(tree: .object(unknown))?.op == .unknown("truncate"))
    }

    @Test func rebuildRecordsAsTheGeneratedDecodingReadsThem() {
        Self.agree(RebuildRecord.self, Self.record, RebuildRecord.init(tree:))
    }

    @Test func pushAnswersAsTheGeneratedDecodingReadsThem() {
        Self.agree(AcceptedMutation.self, Self.accepted, AcceptedMutation.init(tree:))
    }

    /// A whole page: its rows read onto its head, or nil when one row needs the general way.
    @Test func aPageTakesItsRowsOrGivesUpWhole() throws {
        let head = ScopedPullResponse(changes: [], scopeSetVersion: 1, scopeCursors: [:], scopeUpdates: ScopeDelta(add: [], remove: []), rebuild: [], hasMore: false)
        let rows: JSONValue = .array([.object(Self.change), .object(Self.change)])
        let page = try #require(head.with(rowsFrom: rows))
        #expect(page.changes.count == 2 && page.changes.first == ChangeRecord(tree: .object(Self.change)))
        var bad = Self.change
        bad["pk"] = ["id": .integer(1)]
        #expect(head.with(rowsFrom: .array([.object(Self.change), .object(bad)])) == nil)
        #expect(head.with(rowsFrom: nil) == nil)
        #expect(head.with(rowsFrom: .object([:])) == nil)
    }
}

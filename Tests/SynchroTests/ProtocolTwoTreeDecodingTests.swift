import Foundation
import SelfDBRuntime
import Synchro
import Testing

/// The protocol-2 responses that carry rows decode through `JSONTreeDecoder` (faster); these
/// bodies, in the real server's forms, decode to the same values as through Foundation's
/// `JSONDecoder`, and a broken body is still a typed error.
@Suite("Protocol 2 responses decode from a parsed tree")
struct ProtocolTwoTreeDecodingTests {
    static func both<T: Decodable & Equatable>(_ type: T.Type, _ json: String) throws -> T {
        let data = Data(json.utf8)
        let tree = try JSONTreeDecoder.decode(T.self, from: data)
        #expect(tree == (try JSONCoding.makeDecoder().decode(T.self, from: data)))
        return tree
    }

    static let row = """
        {"id":"0b6e5f0a-1c2d-4e3f-8a9b-0c1d2e3f4a5b","title":"caf\\u00e9 \\"x\\"","done":false,"priority":3,
         "ratio":0.25,"tags":["a","b"],"meta":{"k":null},"notes":null,"updated_at":"2026-03-20T18:21:54.120Z","deleted_at":null}
        """

    @Test func pullPage() throws {
        let page = try Self.both(
            ScopedPullResponse.self,
            """
            {"changes":[{"scope":"user:u1","table":"tasks","op":"upsert","pk":{"id":"0b6e5f0a-1c2d-4e3f-8a9b-0c1d2e3f4a5b"},
              "row":\(Self.row),"row_checksum":-1794276911,"server_version":"2026-03-20T18:21:54.120Z"},
             {"scope":"user:u1","table":"tasks","op":"delete","pk":{"id":"x"},"server_version":"17"}],
             "scope_set_version":2,"scope_cursors":{"user:u1":"c.sig"},"scope_updates":{"add":[{"id":"shared:all"}],"remove":["old"]},
             "rebuild":[],"has_more":false,"checksums":{"user:u1":"-1794276911","shared:all":"0"}}
            """
        )
        #expect(page.changes.first?.row?["priority"] == .integer(3))
        #expect(page.changes.first?.row?["ratio"] == .number(0.25))
        #expect(page.changes.first?.row?["done"] == .bool(false))
        #expect(page.changes.last?.row == nil)
    }

    @Test func pushAnswer() throws {
        let answer = try Self.both(
            MutationPushResponse.self,
            """
            {"server_time":"2026-03-20T18:21:54.123456789Z",
             "accepted":[{"mutation_id":"m1","table":"tasks","pk":{"id":"n1"},"status":"applied","server_row":\(Self.row),
               "server_version":"2026-03-20T18:21:54.120Z"}],
             "rejected":[{"mutation_id":"m2","table":"tasks","pk":{"id":"n2"},"status":"conflict","code":"version_conflict",
               "message":"server version is newer","server_row":\(Self.row),"server_version":"2026-03-20T18:21:54.120Z"},
              {"mutation_id":"m3","table":"tasks","pk":{"id":"n3"},"status":"rejected_terminal","code":"table_not_synced"}]}
            """
        )
        #expect(answer.accepted.count == 1)
        #expect(answer.rejected.map(\.mutationId) == ["m2", "m3"])
    }

    @Test func rebuildPage() throws {
        let page = try Self.both(
            RebuildResponse.self,
            """
            {"scope":"user:u1","records":[{"table":"tasks","pk":{"id":"n1"},"row":\(Self.row),"row_checksum":4294967295,
              "server_version":"2026-03-20T18:21:54.120Z"}],"cursor":null,"has_more":false,"final_scope_cursor":"c.sig","checksum":"-1"}
            """
        )
        #expect(page.records.first?.rowChecksum == 4_294_967_295)
    }

    @Test func brokenBodiesAreTypedErrors() {
        #expect(throws: DecodingError.self) { try JSONTreeDecoder.decode(ScopedPullResponse.self, from: Data(#"{"changes":[}"#.utf8)) }
        #expect(throws: DecodingError.self) {
            try JSONTreeDecoder.decode(ScopedPullResponse.self, from: Data(#"{"changes":[],"scope_set_version":"2"}"#.utf8))
        }
        #expect(throws: DecodingError.self) {
            try JSONTreeDecoder.decode(MutationPushResponse.self, from: Data(#"{"server_time":"yesterday","accepted":[],"rejected":[]}"#.utf8))
        }
    }
}

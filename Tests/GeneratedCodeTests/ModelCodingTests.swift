import Foundation
import SelfDBRuntime
import Testing

/// Generated models decode and encode through the runtime's `WireKey` with written-out
/// `init(from:)`/`encode(to:)`; these check that they behave as synthesized `Codable` would,
/// plus the spec's defaults.
@Suite struct ModelCodingTests {
    @Test func wireNamesDefaultsAndMissingOptionals() throws {
        let json = #"{"id":"6f9619ff-8b86-d011-b42d-00c04fc964ff","title":"T","tags":["a"],"created_at":"2024-01-02T03:04:05Z"}"#
        let note = try JSONCoding.makeDecoder().decode(Note.self, from: Data(json.utf8))
        #expect(note.title == "T")
        #expect(note.color == .red, "a missing field takes its spec default")
        #expect(note.createdAt == Date(timeIntervalSince1970: 1_704_164_645))
        let create = try JSONCoding.makeDecoder().decode(NoteCreate.self, from: Data(#"{"title":"x","color":null}"#.utf8))
        #expect(create.color == nil && create.tags == nil, "an optional may be missing or null")
    }

    @Test func encodingUsesWireNamesAndLeavesOutNil() throws {
        let data = try JSONCoding.makeEncoder().encode(NoteCreate(title: "x", color: .greenBlue))
        let object = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        #expect(Set(object.keys) == ["title", "color"], "nil tags are left out")
        #expect(object["color"] as? String == "GREEN_BLUE")
        let tokens = try JSONCoding.makeEncoder().encode(Tokens(accessToken: "a", refreshToken: "r"))
        let keys = try #require(try JSONSerialization.jsonObject(with: tokens) as? [String: Any]).keys
        #expect(Set(keys) == ["access_token", "refresh_token"])
    }

    @Test func aMissingRequiredFieldIsATypedErrorNamingItsWireKey() {
        do {
            _ = try JSONCoding.makeDecoder().decode(Note.self, from: Data(#"{"id":"6f9619ff-8b86-d011-b42d-00c04fc964ff","title":"T","tags":[]}"#.utf8))
            Issue.record("decoded a note without created_at")
        } catch DecodingError.keyNotFound(let key, _) {
            #expect(key.stringValue == "created_at")
        } catch {
            Issue.record("unexpected error \(error)")
        }
    }

    @Test func wireKeysAreTheirNames() {
        #expect(WireKey(intValue: 3).stringValue == "3")
        #expect(WireKey("a") == "a")
        #expect(WireKey("a").intValue == nil)
    }
}

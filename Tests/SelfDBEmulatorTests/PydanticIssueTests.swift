import Foundation
import Testing

@testable import EmulatorSupport
@testable import SelfDBEmulator

/// 422 bodies matched field for field where a real SelfDB v0.0.5's pydantic error carries a
/// `type` or `ctx` other than the obvious one, and the `uuid` crate's wording that pydantic
/// repeats for a UUID it cannot parse.
@Suite("pydantic error bodies")
struct PydanticIssueTests {
    @Test func aShortPasswordIsTooShortWithItsLength() async throws {
        try await withEmulator { _, client in
            let response = try await client.send(
                "POST",
                "/users/",
                json: ["email": "short@example.com", "password": "short", "firstName": "S", "lastName": "P"]
            )
            #expect(response.status == 422)
            let expected: JSONValue = [
                "detail": [
                    [
                        "type": "too_short",
                        "loc": ["body", "password"],
                        "msg": "Value should have at least 8 items after validation, not 5",
                        "input": "short",
                        "ctx": ["field_type": "Value", "min_length": 8, "actual_length": 5],
                    ]
                ]
            ]
            #expect(response.json == expected, "\(response.text)")
        }
    }

    @Test func aLongBucketNameIsTooLongBeforeThePattern() async throws {
        try await withEmulator { _, client in
            let token = try await client.adminToken()
            // 64 characters, and not matching the pattern either: the length is reported.
            let name = String(repeating: "A", count: 64)
            let response = try await client.send("POST", "/storage/buckets/", json: ["name": .string(name)], token: token)
            #expect(response.status == 422)
            let expected: JSONValue = [
                "detail": [
                    [
                        "type": "string_too_long",
                        "loc": ["body", "name"],
                        "msg": "String should have at most 63 characters",
                        "input": .string(name),
                        "ctx": ["max_length": 63],
                    ]
                ]
            ]
            #expect(response.json == expected, "\(response.text)")
        }
    }

    @Test func anUnparsableBucketIDCarriesTheParsersReason() async throws {
        try await withEmulator { _, client in
            let response = try await client.send("GET", "/storage/files/", query: [("bucket_id", "not-a-uuid")])
            #expect(response.status == 422)
            let reason = "invalid character: expected an optional prefix of `urn:uuid:` followed by [0-9a-fA-F-], found `n` at 1"
            let expected: JSONValue = [
                "detail": [
                    [
                        "type": "uuid_parsing",
                        "loc": ["query", "bucket_id"],
                        "msg": .string("Input should be a valid UUID, \(reason)"),
                        "input": "not-a-uuid",
                        "ctx": ["error": .string(reason)],
                    ]
                ]
            ]
            #expect(response.json == expected, "\(response.text)")
        }
    }

    /// pydantic accepts every spelling the `uuid` crate parses, so the emulator does too.
    @Test func otherUUIDSpellingsFindTheBucket() async throws {
        try await withEmulator { _, client in
            let token = try await client.adminToken()
            let id = try await client.newBucket("spellings", public: true, token: token)
            let simple = id.replacingOccurrences(of: "-", with: "").uppercased()
            for spelling in [simple, "{\(id)}", "urn:uuid:\(id)"] {
                let response = try await client.send("GET", "/storage/files/count", query: [("bucket_id", spelling)])
                #expect(response.status == 200, "\(spelling): \(response.text)")
            }
        }
    }

    static let parsed: [(input: String, uuid: String)] = [
        ("67e5504410b1426f9247bb680e5fe0c8", "67e55044-10b1-426f-9247-bb680e5fe0c8"),
        ("F9168C5E-CEB2-4faa-B6BF-329BF39FA1E4", "f9168c5e-ceb2-4faa-b6bf-329bf39fa1e4"),
        ("{6d93bade-bd9f-4e13-8914-9474e1e3567b}", "6d93bade-bd9f-4e13-8914-9474e1e3567b"),
        ("urn:uuid:67e55044-10b1-426f-9247-bb680e5fe0c8", "67e55044-10b1-426f-9247-bb680e5fe0c8"),
    ]

    /// The crate's reasons, position 1-based in UTF-8 bytes of the whole input.
    static let refused: [(input: String, reason: String)] = [
        ("", "invalid length: expected length 32 for simple format, found 0"),
        ("abc", "invalid length: expected length 32 for simple format, found 3"),
        ("67e5504410b1426f9247bb680e5fe0c", "invalid length: expected length 32 for simple format, found 31"),
        ("zzz", "invalid character: expected an optional prefix of `urn:uuid:` followed by [0-9a-fA-F-], found `z` at 1"),
        ("F9168C5E-CEB2-4faa-BGBF-329BF39FA1E4", "invalid character: expected an optional prefix of `urn:uuid:` followed by [0-9a-fA-F-], found `G` at 21"),
        ("aé", "invalid character: expected an optional prefix of `urn:uuid:` followed by [0-9a-fA-F-], found `é` at 2"),
        ("urn:uuid:xyz", "invalid character: expected an optional prefix of `urn:uuid:` followed by [0-9a-fA-F-], found `x` at 10"),
        ("{F9168C5E-CEB2-4faa9B6BFF329BF39FA1E41", "invalid character: expected an optional prefix of `urn:uuid:` followed by [0-9a-fA-F-], found `{` at 1"),
        ("F9168C5E-CEB2F4faaFB6BFF329BF39FA1E4", "invalid group count: expected 5, found 2"),
        ("{12}", "invalid group count: expected 5, found 1"),
        ("F9168C5E-CEB-24fa-eB6BFF32-BF39FA1E4", "invalid group length in group 1: expected 4, found 3"),
        ("01020304-1112-2122-3132-41424344", "invalid group length in group 4: expected 12, found 8"),
    ]

    @Test func parsesAsTheUUIDCrateDoes() {
        for (input, uuid) in Self.parsed {
            #expect(UUIDParsing.parse(input) == .success(uuid), "\(input)")
        }
        for (input, reason) in Self.refused {
            #expect(UUIDParsing.parse(input) == .failure(UUIDParsing.Failure(message: reason)), "\(input)")
        }
    }
}

import Foundation
import Testing

@testable import EmulatorSupport
@testable import SelfDBEmulator
@testable import SynchroEmulator

/// The pieces of Synchro protocol 2 that must match the real 0.3.0 server bit for bit: row and
/// scope checksums (the contract's test vectors), scope cursors (valid, stale, invalid), the
/// schema manifest's hash, and the envelope error shape.
@Suite("Synchro protocol 2: checksums, cursors, manifest, errors")
struct ProtocolTwoPrimitivesTests {
    /// `shared/contracts/synchro-v2.md` §3.8: canonical input → signed CRC-32.
    @Test(arguments: [
        (#"{"id":"abc","name":"test"}"#, Int32(1_221_324_213)),
        ("{}", Int32(-1_549_353_149)),
        (#"{"a":1,"b":2,"c":3}"#, Int32(785_669_035)),
        (#"{"active":true,"email":"test@example.com","user_id":"u1"}"#, Int32(830_595_651)),
        (#"{"deleted_at":null,"id":"w_9","name":"Tempo Run","updated_at":"2026-03-20T18:20:00.000Z","user_id":"u_123"}"#, Int32(1_267_162_089)),
        (#"{"deleted_at":null,"id":"w_10","name":"Lower Body","updated_at":"2026-03-20T18:21:54.000Z","user_id":"u_123"}"#, Int32(1_286_417_118)),
    ])
    func rowChecksumsMatchTheContractsVectors(_ canonical: String, _ expected: Int32) throws {
        let row = try JSONParser.parse(canonical)
        #expect(String(decoding: RowChecksum.canonicalBytes(row), as: UTF8.self) == canonical)
        #expect(RowChecksum.of(row) == expected)
    }

    /// A string of ASCII bytes is taken as it is; any other is checked as UTF-8.
    @Test func stringsAreReadAsUTF8() throws {
        let parsed = try JSONParser.parse(#"{"caf\#u{e9}":"\#u{1F600} ok","a":"plain"}"#)
        #expect(parsed.objectValue?["caf\u{e9}"]?.stringValue == "\u{1F600} ok")
        #expect(parsed.objectValue?["a"]?.stringValue == "plain")
        #expect(throws: JSONParser.Failure.self) { try JSONParser.parse([0x22, 0x61, 0xFF, 0x22]) }
        #expect(throws: JSONParser.Failure.self) { try JSONParser.parse([0x22, 0xC3, 0x22]) }
    }

    @Test func keysAreSortedAtEveryLevelAndTheScopeChecksumIsTheXOR() throws {
        let shuffled = try JSONParser.parse(#"{"user_id":"u_123","name":"Tempo Run","id":"w_9","updated_at":"2026-03-20T18:20:00.000Z","deleted_at":null}"#)
        #expect(RowChecksum.of(shuffled) == 1_267_162_089)
        #expect(RowChecksum.combine([1_267_162_089, 1_286_417_118]) == 120_222_007)
        #expect(RowChecksum.combine([]) == 0)
        // §3.3's example: n9 and n8 in one scope.
        #expect(RowChecksum.combine([-156_732_856, -137_908_432]) == 24_108_408)
        let nested = try JSONParser.parse(#"{"b":{"z":1,"a":[{"y":true,"x":null}]},"a":"/é\n\u0008\u000c\u0001"}"#)
        #expect(String(decoding: RowChecksum.canonicalBytes(nested), as: UTF8.self) == #"{"a":"/é\n\b\f\u0001","b":{"a":[{"x":null,"y":true}],"z":1}}"#)
    }

    @Test(arguments: [(25.5, "25.5"), (10.0, "10.0"), (1e20, "1e20"), (1.5e-7, "1.5e-7"), (-0.25, "-0.25"), (123_456_789.125, "123456789.125")])
    func floatsAreWrittenAsSerdeJSONWritesThem(_ number: Double, _ expected: String) {
        #expect(RowChecksum.shortestRoundTrip(number) == expected)
    }

    @Test(arguments: ["1970-01-01T00:00:00.000Z", "2026-11-24T10:00:00.123Z", "2024-02-29T23:59:59.999Z", "9999-12-31T23:59:59.001Z", "0001-01-01T00:00:00.010Z"])
    func timestampsPrintAsTheyParse(_ text: String) throws {
        #expect(try #require(SyncTimestamp(parsing: text)).text == text)
    }

    @Test func timestampsOutsideFourDigitYearsStillPrint() {
        #expect(SyncTimestamp(milliseconds: 253_402_300_800_000).text == "10000-01-01T00:00:00.000Z")
    }

    @Test func cursorsAreValidStaleOrInvalid() throws {
        let tokens = ScopeCursorToken(streamGeneration: "6f1c2b1e-0000-4000-8000-000000000001", secret: Array(String(repeating: "ab", count: 32).utf8))
        let cursor = tokens.issue(scope: "user:u_123", checkpoint: 418)
        #expect(cursor.hasPrefix("v2."))
        #expect(tokens.verify(cursor, scope: "user:u_123") == .valid(checkpoint: 418))

        // Stale: rebuild, no error.
        let otherDatabase = ScopeCursorToken(streamGeneration: tokens.streamGeneration, secret: Array("another secret".utf8))
        #expect(otherDatabase.verify(cursor, scope: "user:u_123") == .stale, "a cursor signed by another database")
        let newGeneration = ScopeCursorToken(streamGeneration: "6f1c2b1e-0000-4000-8000-000000000002", secret: tokens.secret)
        #expect(newGeneration.verify(cursor, scope: "user:u_123") == .stale, "a cursor from an older stream generation")
        let parts = cursor.split(separator: ".").map(String.init)
        let forgedPayload = Base64URL.encode(Array(#"{"scope_id":"user:u_123","stream_generation":"\#(tokens.streamGeneration)","checkpoint":999999}"#.utf8))
        #expect(tokens.verify("v2.\(forgedPayload).\(parts[2])", scope: "user:u_123") == .stale, "a payload changed under its signature")
        #expect(tokens.verify("v2.workouts_user_u_123_889.sig", scope: "user:u_123") == .stale, "the conformance fixtures' illustrative cursor")
        #expect(tokens.verify("418", scope: "user:u_123") == .stale, "a legacy protocol-1 checkpoint")

        // Invalid: 400.
        #expect(tokens.verify("v2.onlytwo", scope: "user:u_123") == .invalid(reason: "malformed token"))
        #expect(tokens.verify(cursor, scope: "global") == .invalid(reason: "issued for scope user:u_123"))
        let garbage = Base64URL.encode(Array("not json".utf8))
        let signed = ScopeCursorToken(streamGeneration: tokens.streamGeneration, secret: tokens.secret)
        let validSignature = Base64URL.encode(ScopeCursorToken.signature(garbage, secret: signed.secret))
        #expect(tokens.verify("v2.\(garbage).\(validSignature)", scope: "user:u_123") == .invalid(reason: "malformed payload"))
    }

    @Test func theManifestHashIsTheMD5OfItsCompactJSON() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("sync-manifest-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let spec = directory.appendingPathComponent("notes.yaml")
        try """
        spec: 1
        tables:
          Note:
            table: notes
            primaryKey: id
            sync: { owner: user_id }
            columns:
              id: uuid
              user_id: uuid
              title: { type: text, nullable: true }
              updated_at: timestamp
              deleted_at: { type: timestamp, nullable: true }
        """.write(to: spec, atomically: true, encoding: .utf8)
        let manifest = SchemaManifest(try SyncSchema.load([spec]))
        // The expected hash is Python's hashlib.md5 of the expected text.
        #expect(JSONWriter.string(manifest.json) == Self.notesManifest)
        #expect(manifest.hash == Self.notesManifestMD5)
        #expect(SchemaManifest(SyncSchema(tables: [])).hash == "")
    }

    @Test func envelopeErrorsCarryTheAdaptersStatus() {
        let mismatch = SyncError.schemaMismatch(client: (3, "abc"), server: (4, "def"))
        #expect(mismatch.status == .unprocessableContent)
        #expect(JSONWriter.string(mismatch.body) == #"{"error":{"code":"schema_mismatch","message":"client schema 3:abc does not match server schema 4:def","retryable":false}}"#)
        #expect(SyncError.envelope(.upgradeRequired, "unsupported protocol version").status == .upgradeRequired)
        let later = SyncError.envelope(.retryLater, "busy")
        #expect(later.status == .tooManyRequests)
        #expect(later.headers[.retryAfter] == "5")
        #expect(SyncError.invalidRequest("client is not registered").status == .badRequest)
    }

    static let notesManifest =
        #"{"tables":[{"name":"notes","primary_key":["id"],"updated_at_column":"updated_at","deleted_at_column":"deleted_at","columns":["#
        + #"{"name":"id","type":"string","nullable":false},{"name":"user_id","type":"string","nullable":true},"#
        + #"{"name":"title","type":"string","nullable":true},{"name":"updated_at","type":"datetime","nullable":true},"#
        + #"{"name":"deleted_at","type":"datetime","nullable":true}],"indexes":[]}]}"#
    static let notesManifestMD5 = "de05106ad8596c978a2462ed54cd35b0"
}

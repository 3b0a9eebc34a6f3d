import Foundation
import SelfDB
import SelfDBRuntime
import Testing

/// `JSONValue.parse` and `JSONTreeDecoder`: the same values as Foundation's `JSONDecoder`
/// configured by `JSONCoding`, and typed errors for what is not JSON or not the model.
@Suite("JSON tree decoding")
struct JSONTreeDecoderTests {
    struct Everything: Codable, Equatable {
        var text: String
        var flag: Bool
        var count: Int
        var small: Int8
        var big: UInt64
        var ratio: Double
        var single: Float
        var whole: Double
        var when: Date
        var bytes: Data
        var link: URL
        var id: UUID
        var list: [Int64]
        var nested: [String: [String?]]
        var free: JSONValue
        var row: [String: JSONValue]
        var labels: [String: String]
        var missing: String?
        var null: Int?
    }

    static let everything = """
        {"text":"caf\\u00e9 \\ud83d\\ude00 \\"q\\" \\\\ \\/ \\n","flag":true,"count":-42,"small":127,"big":9223372036854775807,
         "ratio":2.5e-3,"single":1.5,"whole":3,"when":"2026-11-27T03:00:00.123456Z","bytes":"aGVsbG8=",
         "link":"https://example.com/a?b=c","id":"6F0D1C1E-3B1A-4E55-9B8E-2D7F3C9A1B20","list":[1,2,9007199254740993],
         "nested":{"a":["x",null],"b":[]},"free":{"n":1,"d":1.25,"s":"s","b":false,"z":null,"a":[1,"2"]},
         "row":{"id":"r1","n":2,"o":{"x":[null]}},"labels":{"id":"r1","kind":"task"},"null":null}
        """

    @Test func decodesWhatFoundationDecodes() throws {
        let data = Data(Self.everything.utf8)
        let foundation = try JSONCoding.makeDecoder().decode(Everything.self, from: data)
        let tree = try JSONTreeDecoder.decode(Everything.self, from: data)
        #expect(tree == foundation)
        #expect(tree.text == "café 😀 \"q\" \\ / \n")
        #expect(tree.list.last == 9_007_199_254_740_993)
        #expect(tree.free["a"] == .array([.integer(1), .string("2")]))
        #expect(tree.free["d"] == .number(1.25))
    }

    @Test func decodesSelfDBModelsAsFoundationDoes() throws {
        let json = """
            {"success":true,"bucket":"docs","path":"notes/a.txt","size":5,"file_id":"6f0d1c1e-3b1a-4e55-9b8e-2d7f3c9a1b20",
             "upload_time":0.0055,"url":"/api/storage/files/docs/notes/a.txt","original_path":null,"message":"ok"}
            """
        let data = Data(json.utf8)
        #expect(try JSONTreeDecoder.decode(FileUploadResponse.self, from: data) == JSONCoding.makeDecoder().decode(FileUploadResponse.self, from: data))
    }

    @Test func parsesNumbersAsTheirKind() throws {
        #expect(
            try JSONValue.parse(Data("[0,-0,1.0,1e2,-9223372036854775808,9223372036854775808]".utf8))
                == .array([
                    .integer(0), .integer(0), .number(1), .number(100), .integer(Int64.min), .number(9_223_372_036_854_775_808),
                ])
        )
    }

    /// Integers of up to 18 characters are read in place, longer ones through their text; a
    /// repeated member name keeps its last value; text that is not ASCII is checked as UTF-8.
    @Test func readsIntegersNamesAndTextAtTheirEdges() throws {
        let parsed = try JSONValue.parse(Data("[999999999999999999,-99999999999999999,-999999999999999999,9223372036854775807,-0]".utf8))
        #expect(parsed == .array([.integer(999_999_999_999_999_999), .integer(-99_999_999_999_999_999), .integer(-999_999_999_999_999_999), .integer(Int64.max), .integer(0)]))
        #expect(try JSONValue.parse(Data(#"{"a":1,"b":2,"a":3}"#.utf8)) == .object(["a": .integer(3), "b": .integer(2)]))
        #expect(try JSONValue.parse(Data(#"{"\#u{e9}t\#u{e9}":"caf\#u{e9} \#u{1F600}","k":"ascii"}"#.utf8)) == .object(["\u{e9}t\u{e9}": "caf\u{e9} \u{1F600}", "k": "ascii"]))
    }

    @Test(arguments: [
        ("", 0, "expected a value"),
        ("{\"a\":1,}", 7, "expected a member name"),
        ("[1 2]", 3, "expected ',' or ']'"),
        ("\"abc", 0, "unterminated string"),
        ("\"a\u{01}\"", 2, "control character in a string"),
        ("\"\\x\"", 2, "invalid escape"),
        ("\"\\ud800\"", 7, "unpaired surrogate"),
        ("01", 1, "unexpected data after the document"),
        ("-", 1, "invalid number"),
        ("1.", 2, "invalid number"),
        ("1e999", 0, "number out of range"),
        ("tru", 0, "expected a value"),
        ("{} x", 3, "unexpected data after the document"),
    ])
    func refusesWhatIsNotJSON(text: String, offset: Int, reason: String) {
        #expect(throws: JSONParseError(offset: offset, reason: reason)) { try JSONValue.parse(Data(text.utf8)) }
    }

    /// Strings are scanned eight bytes at a time: an escape, a quote, a control character or a
    /// non-ASCII character is found wherever it falls in or across those words.
    @Test func readsStringsWhateverFallsOnAWordBoundary() throws {
        for length in 0..<20 {
            for position in 0...length {
                let before = String(repeating: "a", count: position)
                let after = String(repeating: "b", count: length - position)
                for (escaped, text) in [(#"\n"#, "\n"), (#"\""#, "\""), (#"\\"#, "\\"), (#"\u00e9"#, "\u{e9}"), ("\u{e9}", "\u{e9}"), ("\u{1F600}", "\u{1F600}")] {
                    let json = "[\"\(before)\(escaped)\(after)\",\"\(before)\(after)\"]"
                    #expect(try JSONValue.parse(Data(json.utf8)) == .array([.string(before + text + after), .string(before + after)]), "\(json)")
                    let object = "{\"rows\":[\"\(before)\(escaped)\(after)\"],\"k\":\"\(before)\(escaped)\"}"
                    #expect(try JSONValue.parseObject(Data(object.utf8), omitting: ["rows"]) == .object(["k": .string(before + text)]), "\(object)")
                }
                let control = "\"\(before)\u{1F}\(after)\""
                #expect(throws: JSONParseError(offset: 1 + position, reason: "control character in a string")) { try JSONValue.parse(Data(control.utf8)) }
                #expect(throws: JSONParseError(offset: 0, reason: "unterminated string")) { try JSONValue.parse(Data("\"\(before)\(after)".utf8)) }
                var invalid = Array("\"\(before)\(after)\"".utf8)
                invalid.insert(0xFF, at: 1 + position)
                #expect(throws: JSONParseError(offset: 0, reason: "invalid UTF-8 in a string")) { try JSONValue.parse(Data(invalid)) }
            }
        }
    }

    @Test func refusesInvalidUTF8() {
        #expect(throws: JSONParseError(offset: 0, reason: "invalid UTF-8 in a string")) { try JSONValue.parse(Data([0x22, 0xFF, 0x22])) }
    }

    @Test func refusesNestingTooDeep() {
        let deep = String(repeating: "[", count: JSONValue.maximumParsingDepth + 1)
        #expect(throws: JSONParseError(offset: JSONValue.maximumParsingDepth, reason: "nesting too deep")) { try JSONValue.parse(Data(deep.utf8)) }
        let fine = String(repeating: "[", count: 100) + String(repeating: "]", count: 100)
        #expect(throws: Never.self) { try JSONValue.parse(Data(fine.utf8)) }
    }

    @Test func parsesAnObjectLeavingOutTheMembersNamed() throws {
        let text = #"{"changes":[{"row":{"t":"a \"]}[ b","n":[1,2.5e3,true,null,{}]}},[]],"cursor":"c","nested":{"changes":1},"has_more":true}"#
        let head = try JSONValue.parseObject(Data(text.utf8), omitting: ["changes"])
        #expect(head == .object(["cursor": "c", "nested": .object(["changes": .integer(1)]), "has_more": .bool(true)]))
        #expect(try JSONValue.parseObject(Data(text.utf8), omitting: []) == JSONValue.parse(Data(text.utf8)))
        #expect(try JSONValue.parseObject(Data(" {} ".utf8), omitting: ["changes"]) == .object([:]))
    }

    @Test(arguments: [
        ("[1]", 0, "expected an object"),
        ("", 0, "expected an object"),
        (#"{"changes":["abc}"#, 12, "unterminated string"),
        (#"{"changes":[1 2]}"#, 14, "expected ',' or ']'"),
        (#"{"changes":{"a" 1}}"#, 16, "expected ':'"),
        (#"{"changes":{1:2}}"#, 12, "expected a member name"),
        ("{\"changes\":\"a\u{01}\"}", 13, "control character in a string"),
        (#"{"changes":[tru]}"#, 12, "expected a value"),
        (#"{"changes":[]} x"#, 15, "unexpected data after the document"),
        (#"{"changes":[]"#, 13, "unterminated object"),
    ])
    func refusesWhatIsNotAnObjectEvenInTheMembersLeftOut(text: String, offset: Int, reason: String) {
        #expect(throws: JSONParseError(offset: offset, reason: reason)) { try JSONValue.parseObject(Data(text.utf8), omitting: ["changes"]) }
    }

    @Test func leavesOutNoMoreNestingThanItParses() {
        let deep = #"{"changes":"# + String(repeating: "[", count: JSONValue.maximumParsingDepth) + "}"
        #expect(throws: JSONParseError(offset: 11 + JSONValue.maximumParsingDepth - 1, reason: "nesting too deep")) {
            try JSONValue.parseObject(Data(deep.utf8), omitting: ["changes"])
        }
    }

    struct Small: Decodable {
        var name: String
        var count: Int8
        var items: [Bool]
    }

    struct Deep: Decodable {
        var pages: [[String: [String: String]]]
    }

    /// Paths through arrays, objects and the fast-pathed `[String: String]`, as Foundation
    /// reports them.
    @Test func deepMismatchesCarryTheirWholePath() throws {
        let json = Data(#"{"pages":[{"a":{"id":"x"}},{"b":{"id":"y","n":3}}]}"#.utf8)
        var paths: [[String]] = []
        for decode in [{ try JSONTreeDecoder.decode(Deep.self, from: json) }, { try JSONDecoder().decode(Deep.self, from: json) }] {
            do {
                _ = try decode()
                Issue.record("a number for a String decoded")
            } catch DecodingError.typeMismatch(_, let context) {
                paths.append(context.codingPath.map(\.stringValue))
            }
        }
        #expect(paths.first == ["pages", "Index 1", "b", "n"])
        #expect(paths.first == paths.last)
    }

    @Test func mismatchesAreTypedDecodingErrorsWithTheirPath() throws {
        func error(_ json: String) -> DecodingError? {
            do {
                _ = try JSONTreeDecoder.decode(Small.self, from: Data(json.utf8))
                return nil
            } catch {
                return error as? DecodingError
            }
        }
        guard case .keyNotFound(let key, _)? = error(#"{"count":1,"items":[]}"#) else {
            Issue.record("a missing key")
            return
        }
        #expect(key.stringValue == "name")
        guard case .typeMismatch(_, let context)? = error(#"{"name":"a","count":1,"items":[true,1]}"#) else {
            Issue.record("a number for a Bool")
            return
        }
        #expect(context.codingPath.map(\.stringValue) == ["items", "Index 1"])
        guard case .valueNotFound(_, let nullContext)? = error(#"{"name":null,"count":1,"items":[]}"#) else {
            Issue.record("null for a String")
            return
        }
        #expect(nullContext.codingPath.map(\.stringValue) == ["name"])
        guard case .dataCorrupted(let tooBig)? = error(#"{"name":"a","count":300,"items":[]}"#) else {
            Issue.record("300 for an Int8")
            return
        }
        #expect(tooBig.codingPath.map(\.stringValue) == ["count"])
        guard case .dataCorrupted? = error(#"{"name":"a""#) else {
            Issue.record("a document cut short")
            return
        }
    }
}

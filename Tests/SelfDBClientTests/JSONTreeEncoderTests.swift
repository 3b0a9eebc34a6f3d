import Foundation
import SelfDBRuntime
import Testing

/// `JSONTreeEncoder` and `JSONValue.serialized()`: the same JSON, by value, as Foundation's
/// `JSONEncoder` configured by `JSONCoding`, keys sorted, and typed errors for what JSON cannot
/// hold.
@Suite("JSON tree encoding")
struct JSONTreeEncoderTests {
    struct Everything: Codable, Equatable {
        var text = "caf\u{e9} \u{1F600} \"q\" \\ / \n\t\u{1}"
        var flag = true
        var count = -42
        var small: Int8 = 127
        var big: UInt64 = 9_223_372_036_854_775_807
        var ratio = 2.5e-3
        var single: Float = 1.1
        var whole = 3.0
        var huge = 1e300
        var when = Date(timeIntervalSince1970: 1_795_000_000.123)
        var bytes = Data("hello".utf8)
        var link = URL(string: "https://example.com/a?b=c")
        var id = UUID(uuidString: "6F0D1C1E-3B1A-4E55-9B8E-2D7F3C9A1B20")
        var list: [Int64] = [1, 2, 9_007_199_254_740_993]
        var nested: [String: [String?]] = ["b": [], "a": ["x", nil]]
        var free: JSONValue = ["n": 1, "d": 1.25, "s": "s", "b": false, "z": nil, "a": [1, "2"]]
        var row: [String: JSONValue] = ["id": "r1", "o": ["x": [nil]]]
        var labels: [String: String] = ["id": "r1", "kind": "task"]
        var missing: String?
        var kind = Kind.open
    }

    enum Kind: String, Codable {
        case open
    }

    /// A type with nested, unkeyed and super containers, written by hand.
    struct Handwritten: Encodable {
        enum Keys: String, CodingKey { case outer, list, base }
        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: Keys.self)
            var outer = container.nestedContainer(keyedBy: Keys.self, forKey: .outer)
            try outer.encode(1, forKey: .list)
            var list = container.nestedUnkeyedContainer(forKey: .list)
            try list.encode("a")
            try list.encodeNil()
            var inner = list.nestedUnkeyedContainer()
            try inner.encode(true)
            var base = container.superEncoder(forKey: .base).singleValueContainer()
            try base.encode("from super")
        }
    }

    private static func foundation<T: Encodable>(_ value: T) throws -> JSONValue {
        try JSONValue.parse(JSONCoding.makeEncoder().encode(value))
    }

    private static func tree<T: Encodable>(_ value: T) throws -> JSONValue {
        try JSONValue.parse(JSONTreeEncoder.encode(value).serialized())
    }

    @Test func encodesWhatFoundationEncodes() throws {
        #expect(try Self.tree(Everything()) == Self.foundation(Everything()))
        #expect(try Self.tree(Handwritten()) == Self.foundation(Handwritten()))
        #expect(try Self.tree([Everything(), Everything(missing: "here")]) == Self.foundation([Everything(), Everything(missing: "here")]))
        // And what it writes decodes as the model.
        let decoded = try JSONCoding.makeDecoder().decode(Everything.self, from: JSONTreeEncoder.encode(Everything()).serialized())
        #expect(decoded.text == Everything().text && decoded.list == Everything().list && decoded.row == Everything().row)
        #expect(decoded.single == 1.1 && decoded.when == Date(timeIntervalSince1970: 1_795_000_000.123))
    }

    @Test func writesSortedCompactJSON() throws {
        let value: JSONValue = ["b": [1, 2.5, "x/y"], "a": ["d": nil, "c": true], "\u{e9}": "", "Z": 3.0]
        let text = String(decoding: try value.serialized(), as: UTF8.self)
        #expect(text == #"{"Z":3,"a":{"c":true,"d":null},"b":[1,2.5,"x/y"],"\#u{e9}":""}"#)
        let escapes = String(decoding: try JSONValue.string("\"\\\n\r\t\u{8}\u{c}\u{1f}").serialized(), as: UTF8.self)
        #expect(escapes == #""\"\\\n\r\t\b\f\u001f""#)
        // Names sharing a prefix: the shorter first; bytes compare unsigned, so `é` follows `z`.
        let names: JSONValue = ["ab": 1, "a": 2, "z": 3, "\u{e9}": 4, "aa": 5, "": 6]
        #expect(String(decoding: try names.serialized(), as: UTF8.self) == #"{"":6,"a":2,"aa":5,"ab":1,"z":3,"\#u{e9}":4}"#)
    }

    @Test func nonFiniteNumbersAreTypedErrors() {
        struct Bad: Encodable { var value = Double.nan }
        #expect(throws: EncodingError.self) { try JSONTreeEncoder.encode(Bad()) }
        #expect(throws: EncodingError.self) { try JSONValue.number(.infinity).serialized() }
        #expect(throws: EncodingError.self) { try JSONTreeEncoder.encode([Float.infinity]) }
    }

    /// The path of a value JSON cannot hold, through objects and arrays, as Foundation reports it.
    @Test func errorsCarryTheirWholePath() {
        struct Inner: Encodable { var values = [1.0, .nan] }
        struct Outer: Encodable { var pages = ["a": [Inner()]] }
        func path(_ encode: () throws -> Void) -> [String]? {
            do {
                try encode()
                return nil
            } catch EncodingError.invalidValue(_, let context) {
                return context.codingPath.map(\.stringValue)
            } catch {
                return nil
            }
        }
        let tree = path { _ = try JSONTreeEncoder.encode(Outer()) }
        #expect(tree == ["pages", "a", "Index 0", "values", "Index 1"])
        #expect(tree == path { _ = try JSONCoding.makeEncoder().encode(Outer()) })
    }
}

import Foundation
import SelfDB
import Testing

@testable import SelfDBCache

/// The cache's binary item format: every shape Codable can produce reads back equal, and
/// damaged bytes are a thrown error, never a crash.
@Suite("the cache's binary item format")
struct ItemFormatTests {
    enum Shape: Codable, Hashable {
        case circle(radius: Double)
        case polygon([Point], closed: Bool)
        case none
    }

    struct Point: Codable, Hashable {
        var x: Int8
        var y: UInt64
    }

    struct Everything: Codable, Hashable {
        var id: UUID
        var text: String
        var emoji: String
        var empty: String
        var flag: Bool
        var small: Int16
        var big: Int64
        var unsigned: UInt64
        var ratio: Double
        var tiny: Float
        var when: Date
        var maybe: Int?
        var missing: String?
        var list: [String]
        var nested: [[Int]]
        var map: [String: Double]
        var json: JSONValue
        var shapes: [Shape]
        var blob: Data
        var link: URL
        var keyed: [UUID: String]
    }

    static func sample(_ seed: Int) -> Everything {
        Everything(
            id: UUID(),
            text: "row \(seed) — with \"quotes\" and \\ slashes /",
            emoji: "🧪✓",
            empty: "",
            flag: seed.isMultiple(of: 2),
            small: Int16(truncatingIfNeeded: seed * 977),
            big: Int64.min + Int64(seed),
            unsigned: UInt64.max - UInt64(seed),
            ratio: Double(seed) / 3,
            tiny: Float(seed) * 0.1,
            when: Date(timeIntervalSinceReferenceDate: 817_153_009.878_907_6 + Double(seed)),
            maybe: seed.isMultiple(of: 3) ? nil : seed,
            missing: nil,
            list: ["a", "", String(repeating: "long", count: 100)],
            nested: [[], [1, 2], [Int.max]],
            map: ["one": 1, "half": 0.5],
            json: .object(["a": .array([.null, .bool(true), .integer(-3), .number(2.5), .string("x")])]),
            shapes: [.circle(radius: 1.5), .polygon([Point(x: -128, y: 0), Point(x: 127, y: .max)], closed: true), .none],
            blob: Data([0, 1, 2, 255]),
            link: URL(fileURLWithPath: "/tmp/file name"),
            keyed: [UUID(): "v"]
        )
    }

    @Test func everyShapeReadsBackEqual() throws {
        for seed in 0..<50 {
            let value = Self.sample(seed)
            let bytes = try ItemEncoder.encode(value)
            #expect(ItemFormat.isBinary(bytes))
            #expect(try ItemDecoder.decode(Everything.self, from: bytes) == value)
            #expect(ItemNode.parse(bytes)?.serialized() == bytes, "parse and serialize are inverse")
        }
    }

    class Base: Codable {
        var level: Int
        init(level: Int) { self.level = level }
    }

    /// A subclass that encodes its superclass through `superEncoder()`, which the format keeps
    /// under the key `super` (its own keys have no such case).
    final class Derived: Base {
        var name: String
        private enum Keys: String, CodingKey { case name }

        init(level: Int, name: String) {
            self.name = name
            super.init(level: level)
        }

        required init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: Keys.self)
            name = try container.decode(String.self, forKey: .name)
            try super.init(from: container.superDecoder())
        }

        override func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: Keys.self)
            try container.encode(name, forKey: .name)
            try super.encode(to: container.superEncoder())
        }
    }

    @Test func superclassesTravelUnderTheSuperKey() throws {
        let decoded = try ItemDecoder.decode(Derived.self, from: ItemEncoder.encode(Derived(level: 3, name: "x")))
        #expect(decoded.level == 3 && decoded.name == "x")
    }

    @Test func datesKeepEveryBitWhichTheWireTextDoesNot() throws {
        let date = Date(timeIntervalSinceReferenceDate: 817_153_009.123_456_7)
        #expect(try ItemDecoder.decode(Date.self, from: ItemEncoder.encode(date)) == date)
        let viaWire = try JSONCoding.makeDecoder().decode(Date.self, from: JSONCoding.makeEncoder().encode(date))
        #expect(viaWire != date)
    }

    @Test func damagedBytesAreErrors() throws {
        let bytes = try ItemEncoder.encode(Self.sample(7))
        for length in 0..<bytes.count {
            #expect(throws: (any Error).self) { try ItemDecoder.decode(Everything.self, from: bytes.prefix(length)) }
        }
        var flipped = bytes
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<2_000 {
            flipped = bytes
            let index = Int.random(in: 1..<bytes.count, using: &generator)
            flipped[index] = UInt8.random(in: 0...255, using: &generator)
            _ = try? ItemDecoder.decode(Everything.self, from: flipped)  // any outcome but a crash
            _ = ItemNode.parse(flipped)
        }
        #expect(throws: (any Error).self) { try ItemDecoder.decode(Everything.self, from: Data("{\"id\":1}".utf8)) }
    }

    @Test func typeMismatchesAreErrors() throws {
        let bytes = try ItemEncoder.encode(Point(x: 1, y: 300))
        struct Narrow: Codable {
            var x: Int8
            var y: UInt8
        }
        #expect(throws: DecodingError.self) { try ItemDecoder.decode(Narrow.self, from: bytes) }
        struct Renamed: Codable {
            var x: Int8
            var z: UInt64
        }
        #expect(throws: DecodingError.self) { try ItemDecoder.decode(Renamed.self, from: bytes) }
        struct Wider: Codable, Equatable {
            var x: Int64
            var y: Double
        }
        #expect(try ItemDecoder.decode(Wider.self, from: bytes) == Wider(x: 1, y: 300))
    }
}

import Foundation

/// A response type that ``APIClient`` decodes through ``JSONTreeDecoder`` instead of
/// Foundation's `JSONDecoder`.
///
/// For models carrying many free-form values (a sync page of rows, each a `[String: JSONValue]`):
/// through `JSONDecoder`, every value that is not a string costs a thrown `DecodingError` before
/// the right kind is found. The tree decoder hands ``JSONValue`` its parsed value as it is.
/// The model's own `init(from:)` runs either way; only the decoder beneath it changes.
public protocol JSONTreeDecodable: Decodable {}

/// A `Decoder` over a parsed ``JSONValue``, reading what ``JSONCoding/makeDecoder()`` reads:
/// dates in every form ``TimestampParser`` knows, `Data` as Base64, URLs as strings, and
/// integers from numbers without a fraction. (A `UInt64` above `Int64.max` is read through a
/// `Double`, so only exactly when the `Double` holds it; the generated models have no `UInt64`.)
public struct JSONTreeDecoder: Decoder {
    /// The value being decoded.
    public let value: JSONValue
    /// Where ``value`` sits: its container's path and its own key. Kept apart, and joined only
    /// when asked, because a decoder is made for every member of every object decoded and
    /// almost none of them ever reports its path.
    private let parent: CodingPath?
    private let key: (any CodingKey)?

    /// The keys and indexes from the document's root to ``value``.
    public var codingPath: [any CodingKey] { CodingPath.join(parent, key) }
    /// Always empty: nothing the generated models read.
    public var userInfo: [CodingUserInfoKey: Any] { [:] }

    /// A decoder positioned at `value`.
    public init(value: JSONValue, codingPath: [any CodingKey] = []) {
        self.value = value
        self.parent = codingPath.reduce(nil) { CodingPath(parent: $0, key: $1) }
        self.key = nil
    }

    init(value: JSONValue, parent: CodingPath?, key: any CodingKey) {
        self.value = value
        self.parent = parent
        self.key = key
    }

    /// This decoder's path as a parent for its members: shared by all of them.
    private var path: CodingPath? {
        guard let key else { return parent }
        return CodingPath(parent: parent, key: key)
    }

    /// Parses `data` and decodes a `T` from it; a syntax error is `DecodingError.dataCorrupted`.
    public static func decode<T: Decodable>(_ type: T.Type, from data: Data) throws -> T {
        let value: JSONValue
        do {
            value = try JSONValue.parse(data)
        } catch {
            throw DecodingError.dataCorrupted(.init(codingPath: [], debugDescription: "not valid JSON: \(error)", underlyingError: error))
        }
        return try JSONTreeDecoder(value: value).decode(T.self)
    }

    /// The members of an object; anything else is a type mismatch.
    public func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        guard case .object(let object) = value else { throw mismatch([String: JSONValue].self) }
        return KeyedDecodingContainer(KeyedContainer<Key>(object: object, path: path))
    }

    /// The elements of an array; anything else is a type mismatch.
    public func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
        guard case .array(let elements) = value else { throw mismatch([JSONValue].self) }
        return UnkeyedContainer(elements: elements, path: path)
    }

    /// The value itself.
    public func singleValueContainer() throws -> any SingleValueDecodingContainer {
        SingleValueContainer(decoder: self)
    }

    // MARK: - Values

    func mismatch(_ type: Any.Type) -> DecodingError {
        let found: String
        switch value {
        case .null: found = "null"
        case .bool: found = "a boolean"
        case .integer, .number: found = "a number"
        case .string: found = "a string"
        case .array: found = "an array"
        case .object: found = "an object"
        }
        if value == .null {
            return .valueNotFound(type, .init(codingPath: codingPath, debugDescription: "expected \(type), found null"))
        }
        return .typeMismatch(type, .init(codingPath: codingPath, debugDescription: "expected \(type), found \(found)"))
    }

    func decodeString() throws -> String {
        guard case .string(let text) = value else { throw mismatch(String.self) }
        return text
    }

    func decodeBool() throws -> Bool {
        guard case .bool(let flag) = value else { throw mismatch(Bool.self) }
        return flag
    }

    func decodeDouble() throws -> Double {
        switch value {
        case .integer(let integer): return Double(integer)
        case .number(let number): return number
        default: throw mismatch(Double.self)
        }
    }

    func decodeInteger<I: FixedWidthInteger>(_ type: I.Type) throws -> I {
        let converted: I?
        switch value {
        case .integer(let integer): converted = I(exactly: integer)
        case .number(let number): converted = I(exactly: number)
        default: throw mismatch(type)
        }
        guard let converted else {
            throw DecodingError.dataCorrupted(.init(codingPath: codingPath, debugDescription: "the number does not fit \(type)"))
        }
        return converted
    }

    /// The types ``decode(_:)`` reads its own way. Compared by identity, made once: naming
    /// `[String: JSONValue].self` in the comparison looked its generic metadata up again for
    /// every value decoded. (With the one-lookup optionals of the keyed container: 555 M → 546 M
    /// instructions, callgrind, over a benchmark pull page and push answer.)
    private enum Special {
        static let jsonValue = ObjectIdentifier(JSONValue.self)
        static let jsonObject = ObjectIdentifier([String: JSONValue].self)
        static let stringObject = ObjectIdentifier([String: String].self)
        static let date = ObjectIdentifier(Date.self)
        static let data = ObjectIdentifier(Data.self)
        static let url = ObjectIdentifier(URL.self)
        static let all: Set<ObjectIdentifier> = [jsonValue, jsonObject, stringObject, date, data, url]
    }

    /// `T`, with the types Foundation's decoder treats specially read the same way here.
    func decode<T: Decodable>(_ type: T.Type) throws -> T {
        let identity = ObjectIdentifier(type)
        guard Special.all.contains(identity) else { return try T(from: self) }
        if identity == Special.jsonValue, let same = value as? T { return same }
        // A sync page's rows and a push answer's server rows: taken whole rather than member by
        // member through the standard library's generic `Dictionary.init(from:)`, which was
        // most of the cost of decoding a page.
        if identity == Special.jsonObject, case .object(let object) = value, let same = object as? T { return same }
        if identity == Special.stringObject, case .object(let object) = value, let strings = try stringObject(object) as? T { return strings }
        if identity == Special.date {
            let text = try decodeString()
            guard let date = TimestampParser.parse(text) as? T else {
                throw DecodingError.dataCorrupted(.init(codingPath: codingPath, debugDescription: "'\(text)' is not an ISO 8601 date"))
            }
            return date
        }
        if identity == Special.data {
            guard let data = Data(base64Encoded: try decodeString()) as? T else {
                throw DecodingError.dataCorrupted(.init(codingPath: codingPath, debugDescription: "not Base64 data"))
            }
            return data
        }
        if identity == Special.url {
            guard let url = URL(string: try decodeString()) as? T else {
                throw DecodingError.dataCorrupted(.init(codingPath: codingPath, debugDescription: "not a URL"))
            }
            return url
        }
        return try T(from: self)
    }

    private func stringObject(_ object: [String: JSONValue]) throws -> [String: String] {
        var strings = [String: String](minimumCapacity: object.count)
        for (member, value) in object {
            guard case .string(let text) = value else {
                throw JSONTreeDecoder(value: value, parent: path, key: MemberKey(member)).mismatch(String.self)
            }
            strings[member] = text
        }
        return strings
    }
}

/// A decoder's path from the root, as a chain of parents: a member's decoder shares its
/// container's chain instead of copying an array of keys.
final class CodingPath {
    let parent: CodingPath?
    let key: any CodingKey

    init(parent: CodingPath?, key: any CodingKey) {
        self.parent = parent
        self.key = key
    }

    static func join(_ parent: CodingPath?, _ key: (any CodingKey)?) -> [any CodingKey] {
        var keys: [any CodingKey] = key.map { [$0] } ?? []
        var node = parent
        while let current = node {
            keys.append(current.key)
            node = current.parent
        }
        return keys.reversed()
    }
}

// MARK: - Containers

/// An object member's name, as a coding key.
private struct MemberKey: CodingKey {
    let stringValue: String
    var intValue: Int? { nil }
    init(_ name: String) { stringValue = name }
    init?(stringValue: String) { self.stringValue = stringValue }
    init?(intValue: Int) { nil }
}

/// A position in an array, as a coding key (the tree decoder's and encoder's).
struct IndexKey: CodingKey {
    let intValue: Int?
    var stringValue: String { "Index \(intValue ?? 0)" }
    init(_ index: Int) { intValue = index }
    init?(stringValue: String) { nil }
    init?(intValue: Int) { self.intValue = intValue }
}

private struct KeyedContainer<Key: CodingKey>: KeyedDecodingContainerProtocol {
    let object: [String: JSONValue]
    let path: CodingPath?
    var codingPath: [any CodingKey] { CodingPath.join(path, nil) }

    var allKeys: [Key] { object.keys.compactMap { Key(stringValue: $0) } }

    func contains(_ key: Key) -> Bool { object[key.stringValue] != nil }

    private func decoder(_ key: Key) throws -> JSONTreeDecoder {
        guard let value = object[key.stringValue] else {
            throw DecodingError.keyNotFound(key, .init(codingPath: codingPath, debugDescription: "no value for '\(key.stringValue)'"))
        }
        return JSONTreeDecoder(value: value, parent: path, key: key)
    }

    func decodeNil(forKey key: Key) throws -> Bool { try decoder(key).value == .null }

    /// The value of `key` unless it is missing or null: one lookup (the protocol's own version
    /// looks the key up three times, and makes two decoders, for every optional member).
    private func decoderIfPresent(_ key: Key) -> JSONTreeDecoder? {
        guard let value = object[key.stringValue], value != .null else { return nil }
        return JSONTreeDecoder(value: value, parent: path, key: key)
    }

    func decodeIfPresent(_ type: Bool.Type, forKey key: Key) throws -> Bool? { try decoderIfPresent(key)?.decodeBool() }
    func decodeIfPresent(_ type: String.Type, forKey key: Key) throws -> String? { try decoderIfPresent(key)?.decodeString() }
    func decodeIfPresent(_ type: Double.Type, forKey key: Key) throws -> Double? { try decoderIfPresent(key)?.decodeDouble() }
    func decodeIfPresent(_ type: Int.Type, forKey key: Key) throws -> Int? { try decoderIfPresent(key)?.decodeInteger(type) }
    func decodeIfPresent(_ type: Int32.Type, forKey key: Key) throws -> Int32? { try decoderIfPresent(key)?.decodeInteger(type) }
    func decodeIfPresent(_ type: Int64.Type, forKey key: Key) throws -> Int64? { try decoderIfPresent(key)?.decodeInteger(type) }
    func decodeIfPresent<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T? { try decoderIfPresent(key)?.decode(type) }
    func decode(_ type: Bool.Type, forKey key: Key) throws -> Bool { try decoder(key).decodeBool() }
    func decode(_ type: String.Type, forKey key: Key) throws -> String { try decoder(key).decodeString() }
    func decode(_ type: Double.Type, forKey key: Key) throws -> Double { try decoder(key).decodeDouble() }
    func decode(_ type: Float.Type, forKey key: Key) throws -> Float { Float(try decoder(key).decodeDouble()) }
    func decode(_ type: Int.Type, forKey key: Key) throws -> Int { try decoder(key).decodeInteger(type) }
    func decode(_ type: Int8.Type, forKey key: Key) throws -> Int8 { try decoder(key).decodeInteger(type) }
    func decode(_ type: Int16.Type, forKey key: Key) throws -> Int16 { try decoder(key).decodeInteger(type) }
    func decode(_ type: Int32.Type, forKey key: Key) throws -> Int32 { try decoder(key).decodeInteger(type) }
    func decode(_ type: Int64.Type, forKey key: Key) throws -> Int64 { try decoder(key).decodeInteger(type) }
    func decode(_ type: UInt.Type, forKey key: Key) throws -> UInt { try decoder(key).decodeInteger(type) }
    func decode(_ type: UInt8.Type, forKey key: Key) throws -> UInt8 { try decoder(key).decodeInteger(type) }
    func decode(_ type: UInt16.Type, forKey key: Key) throws -> UInt16 { try decoder(key).decodeInteger(type) }
    func decode(_ type: UInt32.Type, forKey key: Key) throws -> UInt32 { try decoder(key).decodeInteger(type) }
    func decode(_ type: UInt64.Type, forKey key: Key) throws -> UInt64 { try decoder(key).decodeInteger(type) }
    func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T { try decoder(key).decode(type) }

    func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type, forKey key: Key) throws -> KeyedDecodingContainer<NestedKey> {
        try decoder(key).container(keyedBy: type)
    }

    func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
        try decoder(key).unkeyedContainer()
    }

    func superDecoder() throws -> any Decoder {
        JSONTreeDecoder(value: object["super"] ?? .null, parent: path, key: MemberKey("super"))
    }

    func superDecoder(forKey key: Key) throws -> any Decoder {
        JSONTreeDecoder(value: object[key.stringValue] ?? .null, parent: path, key: key)
    }
}

private struct UnkeyedContainer: UnkeyedDecodingContainer {
    let elements: [JSONValue]
    let path: CodingPath?
    var codingPath: [any CodingKey] { CodingPath.join(path, nil) }
    private(set) var currentIndex = 0

    init(elements: [JSONValue], path: CodingPath?) {
        self.elements = elements
        self.path = path
    }

    var count: Int? { elements.count }
    var isAtEnd: Bool { currentIndex >= elements.count }

    /// The next element's decoder; the index moves on only once the element decoded.
    private func next<T>(_ type: T.Type) throws -> JSONTreeDecoder {
        guard !isAtEnd else {
            throw DecodingError.valueNotFound(type, .init(codingPath: CodingPath.join(path, IndexKey(currentIndex)), debugDescription: "the array has no more elements"))
        }
        return JSONTreeDecoder(value: elements[currentIndex], parent: path, key: IndexKey(currentIndex))
    }

    private mutating func take<T>(_ read: (JSONTreeDecoder) throws -> T) throws -> T {
        let value = try read(try next(T.self))
        currentIndex += 1
        return value
    }

    mutating func decodeNil() throws -> Bool {
        guard try next(JSONValue.self).value == .null else { return false }
        currentIndex += 1
        return true
    }

    mutating func decode(_ type: Bool.Type) throws -> Bool { try take { try $0.decodeBool() } }
    mutating func decode(_ type: String.Type) throws -> String { try take { try $0.decodeString() } }
    mutating func decode(_ type: Double.Type) throws -> Double { try take { try $0.decodeDouble() } }
    mutating func decode(_ type: Float.Type) throws -> Float { try take { Float(try $0.decodeDouble()) } }
    mutating func decode(_ type: Int.Type) throws -> Int { try take { try $0.decodeInteger(type) } }
    mutating func decode(_ type: Int8.Type) throws -> Int8 { try take { try $0.decodeInteger(type) } }
    mutating func decode(_ type: Int16.Type) throws -> Int16 { try take { try $0.decodeInteger(type) } }
    mutating func decode(_ type: Int32.Type) throws -> Int32 { try take { try $0.decodeInteger(type) } }
    mutating func decode(_ type: Int64.Type) throws -> Int64 { try take { try $0.decodeInteger(type) } }
    mutating func decode(_ type: UInt.Type) throws -> UInt { try take { try $0.decodeInteger(type) } }
    mutating func decode(_ type: UInt8.Type) throws -> UInt8 { try take { try $0.decodeInteger(type) } }
    mutating func decode(_ type: UInt16.Type) throws -> UInt16 { try take { try $0.decodeInteger(type) } }
    mutating func decode(_ type: UInt32.Type) throws -> UInt32 { try take { try $0.decodeInteger(type) } }
    mutating func decode(_ type: UInt64.Type) throws -> UInt64 { try take { try $0.decodeInteger(type) } }
    mutating func decode<T: Decodable>(_ type: T.Type) throws -> T { try take { try $0.decode(type) } }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type) throws -> KeyedDecodingContainer<NestedKey> {
        try take { try $0.container(keyedBy: type) }
    }

    mutating func nestedUnkeyedContainer() throws -> any UnkeyedDecodingContainer {
        try take { try $0.unkeyedContainer() }
    }

    mutating func superDecoder() throws -> any Decoder {
        try take { $0 }
    }
}

private struct SingleValueContainer: SingleValueDecodingContainer {
    let decoder: JSONTreeDecoder
    var codingPath: [any CodingKey] { decoder.codingPath }

    func decodeNil() -> Bool { decoder.value == .null }
    func decode(_ type: Bool.Type) throws -> Bool { try decoder.decodeBool() }
    func decode(_ type: String.Type) throws -> String { try decoder.decodeString() }
    func decode(_ type: Double.Type) throws -> Double { try decoder.decodeDouble() }
    func decode(_ type: Float.Type) throws -> Float { Float(try decoder.decodeDouble()) }
    func decode(_ type: Int.Type) throws -> Int { try decoder.decodeInteger(type) }
    func decode(_ type: Int8.Type) throws -> Int8 { try decoder.decodeInteger(type) }
    func decode(_ type: Int16.Type) throws -> Int16 { try decoder.decodeInteger(type) }
    func decode(_ type: Int32.Type) throws -> Int32 { try decoder.decodeInteger(type) }
    func decode(_ type: Int64.Type) throws -> Int64 { try decoder.decodeInteger(type) }
    func decode(_ type: UInt.Type) throws -> UInt { try decoder.decodeInteger(type) }
    func decode(_ type: UInt8.Type) throws -> UInt8 { try decoder.decodeInteger(type) }
    func decode(_ type: UInt16.Type) throws -> UInt16 { try decoder.decodeInteger(type) }
    func decode(_ type: UInt32.Type) throws -> UInt32 { try decoder.decodeInteger(type) }
    func decode(_ type: UInt64.Type) throws -> UInt64 { try decoder.decodeInteger(type) }
    func decode<T: Decodable>(_ type: T.Type) throws -> T { try decoder.decode(type) }
}

import Foundation

/// Decodes an item from the binary format (`ItemFormat`) straight from its bytes; only
/// objects get an index of their keys. UUIDs and dates are read as themselves.
enum ItemDecoder {
    static func decode<T: Decodable>(_ type: T.Type, from data: Data) throws -> T {
        try data.withUnsafeBytes { try decode(type, from: $0) }
    }

    /// Decodes from bytes in place; nothing decoded keeps a reference to them.
    static func decode<T: Decodable>(_ type: T.Type, from bytes: UnsafeRawBufferPointer) throws -> T {
        guard ItemFormat.isBinary(bytes) else {
            throw DecodingError.dataCorrupted(.init(codingPath: [], debugDescription: "not an item in the cache's binary format"))
        }
        let source = ItemBytes(bytes)
        let decoder = ItemValueDecoder(source: source, offset: 1, codingPath: [])
        let value = try decoder.decodeValue(T.self)
        var end = 1
        try source.skip(at: &end)
        guard end == source.bytes.count else { throw source.corrupt("trailing bytes after the item", at: []) }
        return value
    }
}

/// An item's bytes, borrowed for the length of one decode, and the readers of its parts.
struct ItemBytes {
    let bytes: UnsafeRawBufferPointer

    init(_ bytes: UnsafeRawBufferPointer) {
        self.bytes = bytes
    }

    func corrupt(_ what: String, at path: [any CodingKey]) -> DecodingError {
        .dataCorrupted(.init(codingPath: path, debugDescription: "damaged cache item: \(what)"))
    }

    func tag(at offset: Int) throws -> ItemFormat.Tag {
        guard offset < bytes.count, let tag = ItemFormat.Tag(rawValue: bytes[offset]) else { throw corrupt("unknown tag", at: []) }
        return tag
    }

    func varint(at offset: inout Int) throws -> Int {
        var value: UInt64 = 0
        var shift: UInt64 = 0
        while true {
            guard offset < bytes.count, shift < 64 else { throw corrupt("bad length", at: []) }
            let byte = bytes[offset]
            offset += 1
            value |= UInt64(byte & 0x7F) << shift
            if byte < 0x80 { break }
            shift += 7
        }
        guard value <= UInt64(bytes.count) else { throw corrupt("length beyond the item", at: []) }
        return Int(value)
    }

    func fixed(at offset: Int) throws -> UInt64 {
        guard offset + 8 <= bytes.count else { throw corrupt("truncated number", at: []) }
        var value: UInt64 = 0
        for index in (0..<8).reversed() { value = value << 8 | UInt64(bytes[offset + index]) }
        return value
    }

    /// The 16 bytes of a UUID starting at `offset`.
    func uuid(at offset: Int) throws -> UUID {
        guard offset + 16 <= bytes.count else { throw corrupt("truncated UUID", at: []) }
        let b = bytes
        let o = offset
        return UUID(
            uuid: (
                b[o], b[o + 1], b[o + 2], b[o + 3], b[o + 4], b[o + 5], b[o + 6], b[o + 7],
                b[o + 8], b[o + 9], b[o + 10], b[o + 11], b[o + 12], b[o + 13], b[o + 14], b[o + 15]
            )
        )
    }

    func string(at offset: inout Int) throws -> String {
        let count = try varint(at: &offset)
        guard offset + count <= bytes.count else { throw corrupt("truncated text", at: []) }
        defer { offset += count }
        return String(decoding: UnsafeRawBufferPointer(rebasing: bytes[offset..<offset + count]), as: UTF8.self)
    }

    /// Moves `offset` past the value whose tag is at `offset`.
    func skip(at offset: inout Int) throws {
        let tag = try tag(at: offset)
        offset += 1
        switch tag {
        case .null, .falseValue, .trueValue: break
        case .int, .uint, .double, .date: offset += 8
        case .uuid: offset += 16
        case .string: offset += try varint(at: &offset)
        case .array:
            for _ in 0..<(try varint(at: &offset)) { try skip(at: &offset) }
        case .object:
            for _ in 0..<(try varint(at: &offset)) {
                offset += try varint(at: &offset)
                try skip(at: &offset)
            }
        }
        guard offset <= bytes.count else { throw corrupt("truncated value", at: []) }
    }
}

/// A decoder positioned on one value. Its coding path is built only when asked for (an
/// error, a nested container): most values are scalars read at once.
struct ItemValueDecoder: Decoder {
    let source: ItemBytes
    let offset: Int
    let parentPath: [any CodingKey]
    let key: (any CodingKey)?
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    init(source: ItemBytes, offset: Int, codingPath: [any CodingKey], key: (any CodingKey)? = nil) {
        self.source = source
        self.offset = offset
        self.parentPath = codingPath
        self.key = key
    }

    var codingPath: [any CodingKey] { key.map { parentPath + [$0] } ?? parentPath }

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        guard try source.tag(at: offset) == .object else { throw mismatch([String: Int].self) }
        return KeyedDecodingContainer(try ItemKeyedContainer<Key>(source: source, offset: offset, codingPath: codingPath))
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
        guard try source.tag(at: offset) == .array else { throw mismatch([Int].self) }
        var position = offset + 1
        let count = try source.varint(at: &position)
        return ItemUnkeyedContainer(source: source, codingPath: codingPath, count: count, position: position)
    }

    func singleValueContainer() throws -> any SingleValueDecodingContainer { self }

    func mismatch(_ type: Any.Type) -> DecodingError {
        let found = (try? source.tag(at: offset)).map { "\($0)" } ?? "nothing"
        return .typeMismatch(type, .init(codingPath: codingPath, debugDescription: "expected \(type), found \(found)"))
    }

    /// Any value: scalars, UUIDs and dates directly, the rest through its `init(from:)`.
    func decodeValue<T: Decodable>(_ type: T.Type) throws -> T {
        if T.self == String.self, let value = try decode(String.self) as? T { return value }
        if T.self == UUID.self, let value = try decodeUUID() as? T { return value }
        if T.self == Date.self, let value = try decodeDate() as? T { return value }
        if T.self == Int.self, let value = try decode(Int.self) as? T { return value }
        if T.self == Bool.self, let value = try decode(Bool.self) as? T { return value }
        if T.self == Double.self, let value = try decode(Double.self) as? T { return value }
        if T.self == Int64.self, let value = try decode(Int64.self) as? T { return value }
        return try T(from: self)
    }

    private func decodeUUID() throws -> UUID {
        switch try source.tag(at: offset) {
        case .uuid:
            return try source.uuid(at: offset + 1)
        case .string:
            guard let uuid = UUID(uuidString: try decode(String.self)) else { throw mismatch(UUID.self) }
            return uuid
        default:
            throw mismatch(UUID.self)
        }
    }

    private func decodeDate() throws -> Date {
        switch try source.tag(at: offset) {
        case .date, .double: Date(timeIntervalSinceReferenceDate: Double(bitPattern: try source.fixed(at: offset + 1)))
        case .int: Date(timeIntervalSinceReferenceDate: Double(Int64(bitPattern: try source.fixed(at: offset + 1))))
        default: throw mismatch(Date.self)
        }
    }
}

extension ItemValueDecoder: SingleValueDecodingContainer {
    func decodeNil() -> Bool {
        (try? source.tag(at: offset)) == .null
    }

    func decode(_ type: Bool.Type) throws -> Bool {
        switch try source.tag(at: offset) {
        case .trueValue: true
        case .falseValue: false
        default: throw mismatch(type)
        }
    }

    func decode(_ type: String.Type) throws -> String {
        guard try source.tag(at: offset) == .string else { throw mismatch(type) }
        var position = offset + 1
        return try source.string(at: &position)
    }

    func decode(_ type: Double.Type) throws -> Double {
        switch try source.tag(at: offset) {
        case .double, .date: Double(bitPattern: try source.fixed(at: offset + 1))
        case .int: Double(Int64(bitPattern: try source.fixed(at: offset + 1)))
        case .uint: Double(try source.fixed(at: offset + 1))
        default: throw mismatch(type)
        }
    }

    func decode(_ type: Float.Type) throws -> Float { Float(try decode(Double.self)) }

    /// Integers convert only exactly: a value out of the type's range is a mismatch.
    private func integer<T: FixedWidthInteger>(_ type: T.Type) throws -> T {
        let converted: T?
        switch try source.tag(at: offset) {
        case .int: converted = T(exactly: Int64(bitPattern: try source.fixed(at: offset + 1)))
        case .uint: converted = T(exactly: try source.fixed(at: offset + 1))
        default: converted = nil
        }
        guard let converted else { throw mismatch(type) }
        return converted
    }

    func decode(_ type: Int.Type) throws -> Int { try integer(type) }
    func decode(_ type: Int8.Type) throws -> Int8 { try integer(type) }
    func decode(_ type: Int16.Type) throws -> Int16 { try integer(type) }
    func decode(_ type: Int32.Type) throws -> Int32 { try integer(type) }
    func decode(_ type: Int64.Type) throws -> Int64 { try integer(type) }
    func decode(_ type: UInt.Type) throws -> UInt { try integer(type) }
    func decode(_ type: UInt8.Type) throws -> UInt8 { try integer(type) }
    func decode(_ type: UInt16.Type) throws -> UInt16 { try integer(type) }
    func decode(_ type: UInt32.Type) throws -> UInt32 { try integer(type) }
    func decode(_ type: UInt64.Type) throws -> UInt64 { try integer(type) }
    func decode<T: Decodable>(_ type: T.Type) throws -> T { try decodeValue(type) }
}

/// Finds an object's values by key, scanning its fields from where the last lookup ended:
/// synthesized decoders ask in the order the encoder wrote, so a lookup usually reads one
/// key, and nothing is allocated but this cursor. A key asked for out of order, or missing
/// (a nil optional is not written), costs one pass over the fields.
private final class ObjectIndex {
    let source: ItemBytes
    let count: Int
    private let first: Int
    private var field = 0
    private var cursor: Int

    init(source: ItemBytes, offset: Int) throws {
        self.source = source
        var position = offset + 1
        count = try source.varint(at: &position)
        first = position
        cursor = position
    }

    /// The offset of `key`'s value, or nil.
    func find(_ key: String) throws -> Int? {
        guard count > 0 else { return nil }
        var name = key
        return try name.withUTF8 { wanted -> Int? in
            for _ in 0..<count {
                if field == count {
                    field = 0
                    cursor = first
                }
                var position = cursor
                let length = try source.varint(at: &position)
                guard position + length <= source.bytes.count else { throw source.corrupt("truncated key", at: []) }
                let matches = length == wanted.count && Self.same(source.bytes, from: position, as: wanted)
                let value = position + length
                var next = value
                try source.skip(at: &next)
                field += 1
                cursor = next
                if matches { return value }
            }
            return nil
        }
    }

    /// Every key, in order.
    func keys() throws -> [String] {
        var keys: [String] = []
        var position = first
        for _ in 0..<count {
            keys.append(try source.string(at: &position))
            try source.skip(at: &position)
        }
        return keys
    }

    private static func same(_ bytes: UnsafeRawBufferPointer, from start: Int, as wanted: UnsafeBufferPointer<UInt8>) -> Bool {
        guard let base = bytes.baseAddress, let other = wanted.baseAddress else { return wanted.isEmpty }
        return memcmp(base + start, other, wanted.count) == 0
    }
}

struct ItemKeyedContainer<Key: CodingKey>: KeyedDecodingContainerProtocol {
    let source: ItemBytes
    let codingPath: [any CodingKey]
    private let index: ObjectIndex

    init(source: ItemBytes, offset: Int, codingPath: [any CodingKey]) throws {
        self.source = source
        self.codingPath = codingPath
        index = try ObjectIndex(source: source, offset: offset)
    }

    var allKeys: [Key] { ((try? index.keys()) ?? []).compactMap { Key(stringValue: $0) } }

    func contains(_ key: Key) -> Bool { ((try? index.find(key.stringValue)) ?? nil) != nil }

    private func value(_ key: Key) throws -> ItemValueDecoder {
        guard let offset = try index.find(key.stringValue) else {
            throw DecodingError.keyNotFound(key, .init(codingPath: codingPath, debugDescription: "no value for '\(key.stringValue)'"))
        }
        return ItemValueDecoder(source: source, offset: offset, codingPath: codingPath, key: key)
    }

    /// The value of `key`, or nil when it is missing or null (one lookup, where the default
    /// `decodeIfPresent` makes three).
    private func present(_ key: Key) throws -> ItemValueDecoder? {
        guard let offset = try index.find(key.stringValue), try source.tag(at: offset) != .null else { return nil }
        return ItemValueDecoder(source: source, offset: offset, codingPath: codingPath, key: key)
    }

    func decodeNil(forKey key: Key) throws -> Bool { try value(key).decodeNil() }
    func decode(_ type: Bool.Type, forKey key: Key) throws -> Bool { try value(key).decode(type) }
    func decode(_ type: String.Type, forKey key: Key) throws -> String { try value(key).decode(type) }
    func decode(_ type: Double.Type, forKey key: Key) throws -> Double { try value(key).decode(type) }
    func decode(_ type: Float.Type, forKey key: Key) throws -> Float { try value(key).decode(type) }
    func decode(_ type: Int.Type, forKey key: Key) throws -> Int { try value(key).decode(type) }
    func decode(_ type: Int8.Type, forKey key: Key) throws -> Int8 { try value(key).decode(type) }
    func decode(_ type: Int16.Type, forKey key: Key) throws -> Int16 { try value(key).decode(type) }
    func decode(_ type: Int32.Type, forKey key: Key) throws -> Int32 { try value(key).decode(type) }
    func decode(_ type: Int64.Type, forKey key: Key) throws -> Int64 { try value(key).decode(type) }
    func decode(_ type: UInt.Type, forKey key: Key) throws -> UInt { try value(key).decode(type) }
    func decode(_ type: UInt8.Type, forKey key: Key) throws -> UInt8 { try value(key).decode(type) }
    func decode(_ type: UInt16.Type, forKey key: Key) throws -> UInt16 { try value(key).decode(type) }
    func decode(_ type: UInt32.Type, forKey key: Key) throws -> UInt32 { try value(key).decode(type) }
    func decode(_ type: UInt64.Type, forKey key: Key) throws -> UInt64 { try value(key).decode(type) }
    func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T { try value(key).decodeValue(type) }

    func decodeIfPresent(_ type: Bool.Type, forKey key: Key) throws -> Bool? { try present(key)?.decode(type) }
    func decodeIfPresent(_ type: String.Type, forKey key: Key) throws -> String? { try present(key)?.decode(type) }
    func decodeIfPresent(_ type: Double.Type, forKey key: Key) throws -> Double? { try present(key)?.decode(type) }
    func decodeIfPresent(_ type: Int.Type, forKey key: Key) throws -> Int? { try present(key)?.decode(type) }
    func decodeIfPresent(_ type: Int64.Type, forKey key: Key) throws -> Int64? { try present(key)?.decode(type) }
    func decodeIfPresent<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T? { try present(key)?.decodeValue(type) }

    func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type, forKey key: Key) throws -> KeyedDecodingContainer<NestedKey> {
        try value(key).container(keyedBy: type)
    }

    func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
        try value(key).unkeyedContainer()
    }

    func superDecoder() throws -> any Decoder {
        guard let offset = try index.find("super") else { throw source.corrupt("no value for 'super'", at: codingPath) }
        return ItemValueDecoder(source: source, offset: offset, codingPath: codingPath, key: ElementKey(stringValue: "super"))
    }

    func superDecoder(forKey key: Key) throws -> any Decoder { try value(key) }
}

struct ItemUnkeyedContainer: UnkeyedDecodingContainer {
    let source: ItemBytes
    let codingPath: [any CodingKey]
    let count: Int?
    private(set) var currentIndex = 0
    private var position: Int

    init(source: ItemBytes, codingPath: [any CodingKey], count: Int, position: Int) {
        self.source = source
        self.codingPath = codingPath
        self.count = count
        self.position = position
    }

    var isAtEnd: Bool { currentIndex >= (count ?? 0) }

    /// The decoder of the next element, moving past it.
    private mutating func next<T>(_ type: T.Type) throws -> ItemValueDecoder {
        guard !isAtEnd else {
            throw DecodingError.valueNotFound(type, .init(codingPath: codingPath, debugDescription: "no more elements"))
        }
        let decoder = ItemValueDecoder(source: source, offset: position, codingPath: codingPath, key: ElementKey(currentIndex))
        try source.skip(at: &position)
        currentIndex += 1
        return decoder
    }

    mutating func decodeNil() throws -> Bool {
        guard !isAtEnd, try source.tag(at: position) == .null else { return false }
        _ = try next(Never.self)
        return true
    }

    mutating func decode(_ type: Bool.Type) throws -> Bool { try next(type).decode(type) }
    mutating func decode(_ type: String.Type) throws -> String { try next(type).decode(type) }
    mutating func decode(_ type: Double.Type) throws -> Double { try next(type).decode(type) }
    mutating func decode(_ type: Float.Type) throws -> Float { try next(type).decode(type) }
    mutating func decode(_ type: Int.Type) throws -> Int { try next(type).decode(type) }
    mutating func decode(_ type: Int8.Type) throws -> Int8 { try next(type).decode(type) }
    mutating func decode(_ type: Int16.Type) throws -> Int16 { try next(type).decode(type) }
    mutating func decode(_ type: Int32.Type) throws -> Int32 { try next(type).decode(type) }
    mutating func decode(_ type: Int64.Type) throws -> Int64 { try next(type).decode(type) }
    mutating func decode(_ type: UInt.Type) throws -> UInt { try next(type).decode(type) }
    mutating func decode(_ type: UInt8.Type) throws -> UInt8 { try next(type).decode(type) }
    mutating func decode(_ type: UInt16.Type) throws -> UInt16 { try next(type).decode(type) }
    mutating func decode(_ type: UInt32.Type) throws -> UInt32 { try next(type).decode(type) }
    mutating func decode(_ type: UInt64.Type) throws -> UInt64 { try next(type).decode(type) }
    mutating func decode<T: Decodable>(_ type: T.Type) throws -> T { try next(type).decodeValue(type) }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type) throws -> KeyedDecodingContainer<NestedKey> {
        try next([String: Int].self).container(keyedBy: type)
    }

    mutating func nestedUnkeyedContainer() throws -> any UnkeyedDecodingContainer {
        try next([Int].self).unkeyedContainer()
    }

    mutating func superDecoder() throws -> any Decoder { try next(Never.self) }
}

/// The coding key of an array element, or of a named value such as `super`.
struct ElementKey: CodingKey {
    let intValue: Int?
    private let name: String?
    var stringValue: String { name ?? intValue.map(String.init) ?? "" }

    init(_ index: Int) {
        intValue = index
        name = nil
    }
    init(stringValue: String) {
        intValue = Int(stringValue)
        name = stringValue
    }
    init?(intValue: Int) { self.init(intValue) }
}

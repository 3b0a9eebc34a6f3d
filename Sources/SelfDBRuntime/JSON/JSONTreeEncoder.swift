import Foundation

/// A request body type that ``APIClient`` encodes through ``JSONTreeEncoder`` instead of
/// Foundation's `JSONEncoder`.
///
/// For models carrying many free-form values (a push batch of rows, each a
/// `[String: JSONValue]`): Foundation's encoder boxes every value on its way through
/// `Codable`; the tree encoder takes a ``JSONValue`` as it is. The model's own `encode(to:)`
/// runs either way; only the encoder beneath it changes.
public protocol JSONTreeEncodable: Encodable {}

/// An `Encoder` that builds a ``JSONValue``, writing what ``JSONCoding/makeEncoder()`` writes:
/// dates as ISO 8601 with milliseconds and `Z`, `Data` as Base64, URLs as strings, and nil
/// optionals left out where the model's `encodeIfPresent` leaves them out.
/// ``JSONValue/serialized()`` then writes it with sorted keys.
public enum JSONTreeEncoder {
    /// `value` as a JSON tree.
    ///
    /// - Throws: `EncodingError.invalidValue` for a non-finite number, and what the value's
    ///   own `encode(to:)` throws.
    public static func encode<T: Encodable>(_ value: T) throws -> JSONValue {
        try Node.resolve(TreeEncoder.wrap(value, parent: nil, key: nil))
    }
}

/// A value being built: finished, or a container its encoder may still write into.
private enum Node {
    case value(JSONValue)
    case object(ObjectBox)
    case array(ArrayBox)
    /// A super-encoder's output, known only once its encoder is done.
    case encoder(TreeEncoder)

    static func resolve(_ node: Node) throws -> JSONValue {
        switch node {
        case .value(let value): return value
        case .object(let box): return .object(try box.members.mapValues(resolve))
        case .array(let box): return .array(try box.elements.map(resolve))
        case .encoder(let encoder): return try resolve(encoder.node ?? .value(.object([:])))
        }
    }
}

private final class ObjectBox {
    var members: [String: Node] = [:]
}

private final class ArrayBox {
    var elements: [Node] = []
}

/// An encoder for one value. Paths are chains of ``CodingPath`` shared with the containers
/// (as in ``JSONTreeDecoder``), joined into arrays only when asked or reported in an error.
private final class TreeEncoder: Encoder {
    let path: CodingPath?
    var codingPath: [any CodingKey] { CodingPath.join(path, nil) }
    var userInfo: [CodingUserInfoKey: Any] { [:] }
    /// What was encoded; nil until something was (a type that encodes nothing is `{}`).
    var node: Node?

    init(path: CodingPath?) {
        self.path = path
    }

    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        let box: ObjectBox
        if case .object(let existing) = node {
            box = existing
        } else {
            box = ObjectBox()
            node = .object(box)
        }
        return KeyedEncodingContainer(KeyedContainer<Key>(box: box, path: path))
    }

    func unkeyedContainer() -> any UnkeyedEncodingContainer {
        let box: ArrayBox
        if case .array(let existing) = node {
            box = existing
        } else {
            box = ArrayBox()
            node = .array(box)
        }
        return UnkeyedContainer(box: box, path: path)
    }

    func singleValueContainer() -> any SingleValueEncodingContainer {
        SingleValueContainer(encoder: self)
    }

    /// `value` as a node: the values Foundation's encoder treats specially the same way here,
    /// free-form JSON as it is, anything else through its own `encode(to:)`.
    static func wrap<T: Encodable>(_ value: T, parent: CodingPath?, key: (any CodingKey)?) throws -> Node {
        // Type comparisons first: a failed dynamic cast per value would cost more than the
        // encoding it saves.
        let type = T.self
        if type == JSONValue.self, let json = value as? JSONValue { return .value(json) }
        if type == [String: JSONValue].self, let object = value as? [String: JSONValue] { return .value(.object(object)) }
        if type == [String: String].self, let object = value as? [String: String] { return .value(.object(object.mapValues(JSONValue.string))) }
        if type == String.self, let text = value as? String { return .value(.string(text)) }
        if type == Date.self, let date = value as? Date { return .value(.string(TimestampParser.format(date))) }
        if type == Data.self, let data = value as? Data { return .value(.string(data.base64EncodedString())) }
        if type == URL.self, let url = value as? URL { return .value(.string(url.absoluteString)) }
        let encoder = TreeEncoder(path: key.map { CodingPath(parent: parent, key: $0) } ?? parent)
        try value.encode(to: encoder)
        return encoder.node ?? .value(.object([:]))
    }

    static func number(_ value: Double, parent: CodingPath?, key: (any CodingKey)?) throws -> JSONValue {
        guard value.isFinite else {
            throw EncodingError.invalidValue(value, .init(codingPath: CodingPath.join(parent, key), debugDescription: "\(value) is not a JSON number"))
        }
        return .number(value)
    }

    /// A `Float` as the `Double` its shortest digits name (`1.1`, not `1.100000023841858`), as
    /// Foundation writes it.
    static func double(_ value: Float) -> Double {
        Double("\(value)") ?? Double(value)
    }

    static func integer<I: FixedWidthInteger>(_ value: I, parent: CodingPath?, key: (any CodingKey)?) throws -> JSONValue {
        guard let exact = Int64(exactly: value) else {
            // Above `Int64.max`: through a `Double`, exact only where it holds the value (the
            // generated models have no `UInt64`).
            return try number(Double(value), parent: parent, key: key)
        }
        return .integer(exact)
    }
}

// MARK: - Containers

private struct KeyedContainer<Key: CodingKey>: KeyedEncodingContainerProtocol {
    let box: ObjectBox
    let path: CodingPath?
    var codingPath: [any CodingKey] { CodingPath.join(path, nil) }

    private func set(_ value: JSONValue, _ key: Key) { box.members[key.stringValue] = .value(value) }

    mutating func encodeNil(forKey key: Key) throws { set(.null, key) }
    mutating func encode(_ value: Bool, forKey key: Key) throws { set(.bool(value), key) }
    mutating func encode(_ value: String, forKey key: Key) throws { set(.string(value), key) }
    mutating func encode(_ value: Double, forKey key: Key) throws { set(try TreeEncoder.number(value, parent: path, key: key), key) }
    mutating func encode(_ value: Float, forKey key: Key) throws { set(try TreeEncoder.number(TreeEncoder.double(value), parent: path, key: key), key) }
    mutating func encode(_ value: Int, forKey key: Key) throws { set(.integer(Int64(value)), key) }
    mutating func encode(_ value: Int8, forKey key: Key) throws { set(.integer(Int64(value)), key) }
    mutating func encode(_ value: Int16, forKey key: Key) throws { set(.integer(Int64(value)), key) }
    mutating func encode(_ value: Int32, forKey key: Key) throws { set(.integer(Int64(value)), key) }
    mutating func encode(_ value: Int64, forKey key: Key) throws { set(.integer(value), key) }
    mutating func encode(_ value: UInt, forKey key: Key) throws { set(try TreeEncoder.integer(value, parent: path, key: key), key) }
    mutating func encode(_ value: UInt8, forKey key: Key) throws { set(.integer(Int64(value)), key) }
    mutating func encode(_ value: UInt16, forKey key: Key) throws { set(.integer(Int64(value)), key) }
    mutating func encode(_ value: UInt32, forKey key: Key) throws { set(.integer(Int64(value)), key) }
    mutating func encode(_ value: UInt64, forKey key: Key) throws { set(try TreeEncoder.integer(value, parent: path, key: key), key) }
    mutating func encode<T: Encodable>(_ value: T, forKey key: Key) throws {
        box.members[key.stringValue] = try TreeEncoder.wrap(value, parent: path, key: key)
    }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type, forKey key: Key) -> KeyedEncodingContainer<NestedKey> {
        let nested = ObjectBox()
        box.members[key.stringValue] = .object(nested)
        return KeyedEncodingContainer(KeyedContainer<NestedKey>(box: nested, path: CodingPath(parent: path, key: key)))
    }

    mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
        let nested = ArrayBox()
        box.members[key.stringValue] = .array(nested)
        return UnkeyedContainer(box: nested, path: CodingPath(parent: path, key: key))
    }

    mutating func superEncoder() -> any Encoder {
        let encoder = TreeEncoder(path: CodingPath(parent: path, key: SuperKey()))
        box.members["super"] = .encoder(encoder)
        return encoder
    }

    mutating func superEncoder(forKey key: Key) -> any Encoder {
        let encoder = TreeEncoder(path: CodingPath(parent: path, key: key))
        box.members[key.stringValue] = .encoder(encoder)
        return encoder
    }
}

private struct SuperKey: CodingKey {
    var stringValue: String { "super" }
    var intValue: Int? { nil }
    init() {}
    init?(stringValue: String) { nil }
    init?(intValue: Int) { nil }
}

private struct UnkeyedContainer: UnkeyedEncodingContainer {
    let box: ArrayBox
    let path: CodingPath?
    var codingPath: [any CodingKey] { CodingPath.join(path, nil) }
    var count: Int { box.elements.count }

    /// The key of the element appended next.
    private var nextKey: IndexKey { IndexKey(count) }
    private func append(_ value: JSONValue) { box.elements.append(.value(value)) }

    mutating func encodeNil() throws { append(.null) }
    mutating func encode(_ value: Bool) throws { append(.bool(value)) }
    mutating func encode(_ value: String) throws { append(.string(value)) }
    mutating func encode(_ value: Double) throws { append(try TreeEncoder.number(value, parent: path, key: nextKey)) }
    mutating func encode(_ value: Float) throws { append(try TreeEncoder.number(TreeEncoder.double(value), parent: path, key: nextKey)) }
    mutating func encode(_ value: Int) throws { append(.integer(Int64(value))) }
    mutating func encode(_ value: Int8) throws { append(.integer(Int64(value))) }
    mutating func encode(_ value: Int16) throws { append(.integer(Int64(value))) }
    mutating func encode(_ value: Int32) throws { append(.integer(Int64(value))) }
    mutating func encode(_ value: Int64) throws { append(.integer(value)) }
    mutating func encode(_ value: UInt) throws { append(try TreeEncoder.integer(value, parent: path, key: nextKey)) }
    mutating func encode(_ value: UInt8) throws { append(.integer(Int64(value))) }
    mutating func encode(_ value: UInt16) throws { append(.integer(Int64(value))) }
    mutating func encode(_ value: UInt32) throws { append(.integer(Int64(value))) }
    mutating func encode(_ value: UInt64) throws { append(try TreeEncoder.integer(value, parent: path, key: nextKey)) }
    mutating func encode<T: Encodable>(_ value: T) throws { box.elements.append(try TreeEncoder.wrap(value, parent: path, key: nextKey)) }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type) -> KeyedEncodingContainer<NestedKey> {
        let nested = ObjectBox()
        let nestedPath = CodingPath(parent: path, key: nextKey)
        box.elements.append(.object(nested))
        return KeyedEncodingContainer(KeyedContainer<NestedKey>(box: nested, path: nestedPath))
    }

    mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer {
        let nested = ArrayBox()
        let nestedPath = CodingPath(parent: path, key: nextKey)
        box.elements.append(.array(nested))
        return UnkeyedContainer(box: nested, path: nestedPath)
    }

    mutating func superEncoder() -> any Encoder {
        let encoder = TreeEncoder(path: CodingPath(parent: path, key: nextKey))
        box.elements.append(.encoder(encoder))
        return encoder
    }
}

private struct SingleValueContainer: SingleValueEncodingContainer {
    let encoder: TreeEncoder
    var codingPath: [any CodingKey] { encoder.codingPath }

    private func set(_ value: JSONValue) { encoder.node = .value(value) }

    mutating func encodeNil() throws { set(.null) }
    mutating func encode(_ value: Bool) throws { set(.bool(value)) }
    mutating func encode(_ value: String) throws { set(.string(value)) }
    mutating func encode(_ value: Double) throws { set(try TreeEncoder.number(value, parent: encoder.path, key: nil)) }
    mutating func encode(_ value: Float) throws { set(try TreeEncoder.number(TreeEncoder.double(value), parent: encoder.path, key: nil)) }
    mutating func encode(_ value: Int) throws { set(.integer(Int64(value))) }
    mutating func encode(_ value: Int8) throws { set(.integer(Int64(value))) }
    mutating func encode(_ value: Int16) throws { set(.integer(Int64(value))) }
    mutating func encode(_ value: Int32) throws { set(.integer(Int64(value))) }
    mutating func encode(_ value: Int64) throws { set(.integer(value)) }
    mutating func encode(_ value: UInt) throws { set(try TreeEncoder.integer(value, parent: encoder.path, key: nil)) }
    mutating func encode(_ value: UInt8) throws { set(.integer(Int64(value))) }
    mutating func encode(_ value: UInt16) throws { set(.integer(Int64(value))) }
    mutating func encode(_ value: UInt32) throws { set(.integer(Int64(value))) }
    mutating func encode(_ value: UInt64) throws { set(try TreeEncoder.integer(value, parent: encoder.path, key: nil)) }
    mutating func encode<T: Encodable>(_ value: T) throws { encoder.node = try TreeEncoder.wrap(value, parent: encoder.path, key: nil) }
}

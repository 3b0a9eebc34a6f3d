import Foundation

/// Encodes an item into the binary format (`ItemFormat`): containers fill `ItemNode`s,
/// serialized once encoding is done. UUIDs and dates are written as themselves.
enum ItemEncoder {
    static func encode<T: Encodable>(_ value: T) throws -> Data {
        try node(value).serialized()
    }

    /// The tree of `value`, for callers that edit it before serializing.
    static func node<T: Encodable>(_ value: T) throws -> ItemNode {
        let root = ItemNode(.null)
        try ItemValueEncoder(node: root, parentPath: []).encodeValue(value)
        return root
    }
}

/// An encoder writing one value into `node`. As in the decoder, its coding path is built
/// only when a container asks for it.
struct ItemValueEncoder: Encoder {
    let node: ItemNode
    let parentPath: [any CodingKey]
    var key: (any CodingKey)? = nil
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    var codingPath: [any CodingKey] { key.map { parentPath + [$0] } ?? parentPath }

    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        // Asking twice for a keyed container of one value continues the same object.
        if case .object = node.kind {} else { node.kind = .object([]) }
        return KeyedEncodingContainer(ItemKeyedEncodingContainer<Key>(node: node, codingPath: codingPath))
    }

    func unkeyedContainer() -> any UnkeyedEncodingContainer {
        if case .array = node.kind {} else { node.kind = .array([]) }
        return ItemUnkeyedEncodingContainer(node: node, codingPath: codingPath)
    }

    func singleValueContainer() -> any SingleValueEncodingContainer { self }

    func encodeValue<T: Encodable>(_ value: T) throws {
        switch value {
        case let uuid as UUID: node.kind = .uuid(uuid)
        case let date as Date: node.kind = .date(date)
        case let text as String: node.kind = .string(text)
        case let number as Int: node.kind = .int(Int64(number))
        case let flag as Bool: node.kind = .bool(flag)
        case let number as Double: node.kind = .double(number)
        default: try value.encode(to: self)
        }
    }
}

extension ItemValueEncoder: SingleValueEncodingContainer {
    func encodeNil() { node.kind = .null }
    func encode(_ value: Bool) { node.kind = .bool(value) }
    func encode(_ value: String) { node.kind = .string(value) }
    func encode(_ value: Double) { node.kind = .double(value) }
    func encode(_ value: Float) { node.kind = .double(Double(value)) }
    func encode(_ value: Int) { node.kind = .int(Int64(value)) }
    func encode(_ value: Int8) { node.kind = .int(Int64(value)) }
    func encode(_ value: Int16) { node.kind = .int(Int64(value)) }
    func encode(_ value: Int32) { node.kind = .int(Int64(value)) }
    func encode(_ value: Int64) { node.kind = .int(value) }
    func encode(_ value: UInt) { node.kind = .uint(UInt64(value)) }
    func encode(_ value: UInt8) { node.kind = .uint(UInt64(value)) }
    func encode(_ value: UInt16) { node.kind = .uint(UInt64(value)) }
    func encode(_ value: UInt32) { node.kind = .uint(UInt64(value)) }
    func encode(_ value: UInt64) { node.kind = .uint(value) }
    func encode<T: Encodable>(_ value: T) throws { try encodeValue(value) }
}

struct ItemKeyedEncodingContainer<Key: CodingKey>: KeyedEncodingContainerProtocol {
    let node: ItemNode
    let codingPath: [any CodingKey]

    /// A new field's node (a key set twice keeps its first place and takes the last value).
    private func field(_ key: Key) -> ItemNode {
        field(named: key.stringValue)
    }

    private func field(named name: String) -> ItemNode {
        guard case .object(var fields) = node.kind else { return ItemNode(.null) }
        if let existing = fields.first(where: { $0.key == name }) { return existing.value }
        let child = ItemNode(.null)
        node.kind = .null  // drop the reference so the append does not copy the array
        fields.append((name, child))
        node.kind = .object(fields)
        return child
    }

    private func encoder(_ key: Key) -> ItemValueEncoder {
        ItemValueEncoder(node: field(key), parentPath: codingPath, key: key)
    }

    mutating func encodeNil(forKey key: Key) { field(key).kind = .null }
    mutating func encode(_ value: Bool, forKey key: Key) { field(key).kind = .bool(value) }
    mutating func encode(_ value: String, forKey key: Key) { field(key).kind = .string(value) }
    mutating func encode(_ value: Double, forKey key: Key) { field(key).kind = .double(value) }
    mutating func encode(_ value: Float, forKey key: Key) { field(key).kind = .double(Double(value)) }
    mutating func encode(_ value: Int, forKey key: Key) { field(key).kind = .int(Int64(value)) }
    mutating func encode(_ value: Int8, forKey key: Key) { field(key).kind = .int(Int64(value)) }
    mutating func encode(_ value: Int16, forKey key: Key) { field(key).kind = .int(Int64(value)) }
    mutating func encode(_ value: Int32, forKey key: Key) { field(key).kind = .int(Int64(value)) }
    mutating func encode(_ value: Int64, forKey key: Key) { field(key).kind = .int(value) }
    mutating func encode(_ value: UInt, forKey key: Key) { field(key).kind = .uint(UInt64(value)) }
    mutating func encode(_ value: UInt8, forKey key: Key) { field(key).kind = .uint(UInt64(value)) }
    mutating func encode(_ value: UInt16, forKey key: Key) { field(key).kind = .uint(UInt64(value)) }
    mutating func encode(_ value: UInt32, forKey key: Key) { field(key).kind = .uint(UInt64(value)) }
    mutating func encode(_ value: UInt64, forKey key: Key) { field(key).kind = .uint(value) }

    mutating func encode<T: Encodable>(_ value: T, forKey key: Key) throws {
        try encoder(key).encodeValue(value)
    }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type, forKey key: Key) -> KeyedEncodingContainer<NestedKey> {
        encoder(key).container(keyedBy: keyType)
    }

    mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
        encoder(key).unkeyedContainer()
    }

    /// Under the key `super`, where the decoder's `superDecoder()` looks.
    mutating func superEncoder() -> any Encoder {
        ItemValueEncoder(node: field(named: "super"), parentPath: codingPath, key: ElementKey(stringValue: "super"))
    }

    mutating func superEncoder(forKey key: Key) -> any Encoder { encoder(key) }
}

struct ItemUnkeyedEncodingContainer: UnkeyedEncodingContainer {
    let node: ItemNode
    let codingPath: [any CodingKey]

    var count: Int {
        if case .array(let elements) = node.kind { elements.count } else { 0 }
    }

    /// A new element's node.
    private func append() -> ItemNode {
        guard case .array(var elements) = node.kind else { return ItemNode(.null) }
        let child = ItemNode(.null)
        node.kind = .null
        elements.append(child)
        node.kind = .array(elements)
        return child
    }

    mutating func encodeNil() { append().kind = .null }
    mutating func encode(_ value: Bool) { append().kind = .bool(value) }
    mutating func encode(_ value: String) { append().kind = .string(value) }
    mutating func encode(_ value: Double) { append().kind = .double(value) }
    mutating func encode(_ value: Float) { append().kind = .double(Double(value)) }
    mutating func encode(_ value: Int) { append().kind = .int(Int64(value)) }
    mutating func encode(_ value: Int8) { append().kind = .int(Int64(value)) }
    mutating func encode(_ value: Int16) { append().kind = .int(Int64(value)) }
    mutating func encode(_ value: Int32) { append().kind = .int(Int64(value)) }
    mutating func encode(_ value: Int64) { append().kind = .int(value) }
    mutating func encode(_ value: UInt) { append().kind = .uint(UInt64(value)) }
    mutating func encode(_ value: UInt8) { append().kind = .uint(UInt64(value)) }
    mutating func encode(_ value: UInt16) { append().kind = .uint(UInt64(value)) }
    mutating func encode(_ value: UInt32) { append().kind = .uint(UInt64(value)) }
    mutating func encode(_ value: UInt64) { append().kind = .uint(value) }

    mutating func encode<T: Encodable>(_ value: T) throws {
        let index = count
        try ItemValueEncoder(node: append(), parentPath: codingPath, key: ElementKey(index)).encodeValue(value)
    }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type) -> KeyedEncodingContainer<NestedKey> {
        ItemValueEncoder(node: append(), parentPath: codingPath).container(keyedBy: keyType)
    }

    mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer {
        ItemValueEncoder(node: append(), parentPath: codingPath).unkeyedContainer()
    }

    mutating func superEncoder() -> any Encoder {
        ItemValueEncoder(node: append(), parentPath: codingPath)
    }
}

import Foundation

/// The cache's binary item format: a tagged tree like JSON's, plus UUIDs and dates as
/// themselves, so an item reads back exactly and decoding parses no text (Foundation's
/// JSON decoder, and UUID parsing in particular, dominated reading a view).
///
/// An item is `formatVersion` followed by one value. A value is a tag byte and its payload:
/// integers little-endian, lengths and counts as LEB128 varints, strings UTF-8, objects as
/// (key, value) pairs in encoding order.
enum ItemFormat {
    /// First byte of a binary item. JSON text (earlier versions) starts with `{` or `[`.
    static let formatVersion: UInt8 = 0xC1

    enum Tag: UInt8 {
        case null = 0
        case falseValue, trueValue, int, uint, double, string, array, object, uuid, date
    }

    /// Whether `data` is an item in this format (rather than JSON text).
    static func isBinary(_ data: Data) -> Bool {
        data.first == formatVersion
    }

    /// Whether `bytes` are an item in this format.
    static func isBinary(_ bytes: UnsafeRawBufferPointer) -> Bool {
        bytes.first == formatVersion
    }
}

/// An encoded value while an encoder builds it: a class, because a container handed out by
/// the encoder is filled after it is attached to its parent.
final class ItemNode {
    enum Kind {
        case null
        case bool(Bool)
        case int(Int64)
        case uint(UInt64)
        case double(Double)
        case string(String)
        case uuid(UUID)
        case date(Date)
        case array([ItemNode])
        case object([(key: String, value: ItemNode)])
    }

    var kind: Kind

    init(_ kind: Kind) {
        self.kind = kind
    }

    /// The item's bytes: the format version and this value.
    func serialized() -> Data {
        var bytes: [UInt8] = [ItemFormat.formatVersion]
        bytes.reserveCapacity(256)
        write(into: &bytes)
        return Data(bytes)
    }

    func write(into bytes: inout [UInt8]) {
        switch kind {
        case .null: bytes.append(ItemFormat.Tag.null.rawValue)
        case .bool(let value): bytes.append((value ? ItemFormat.Tag.trueValue : .falseValue).rawValue)
        case .int(let value):
            bytes.append(ItemFormat.Tag.int.rawValue)
            Self.appendFixed(UInt64(bitPattern: value), to: &bytes)
        case .uint(let value):
            bytes.append(ItemFormat.Tag.uint.rawValue)
            Self.appendFixed(value, to: &bytes)
        case .double(let value):
            bytes.append(ItemFormat.Tag.double.rawValue)
            Self.appendFixed(value.bitPattern, to: &bytes)
        case .date(let value):
            bytes.append(ItemFormat.Tag.date.rawValue)
            Self.appendFixed(value.timeIntervalSinceReferenceDate.bitPattern, to: &bytes)
        case .string(let value):
            bytes.append(ItemFormat.Tag.string.rawValue)
            Self.appendString(value, to: &bytes)
        case .uuid(let value):
            bytes.append(ItemFormat.Tag.uuid.rawValue)
            withUnsafeBytes(of: value.uuid) { bytes.append(contentsOf: $0) }
        case .array(let elements):
            bytes.append(ItemFormat.Tag.array.rawValue)
            Self.appendVarint(UInt64(elements.count), to: &bytes)
            for element in elements { element.write(into: &bytes) }
        case .object(let fields):
            bytes.append(ItemFormat.Tag.object.rawValue)
            Self.appendVarint(UInt64(fields.count), to: &bytes)
            for field in fields {
                Self.appendString(field.key, to: &bytes)
                field.value.write(into: &bytes)
            }
        }
    }

    static func appendFixed(_ value: UInt64, to bytes: inout [UInt8]) {
        withUnsafeBytes(of: value.littleEndian) { bytes.append(contentsOf: $0) }
    }

    static func appendVarint(_ value: UInt64, to bytes: inout [UInt8]) {
        var rest = value
        while rest >= 0x80 {
            bytes.append(UInt8(truncatingIfNeeded: rest) | 0x80)
            rest >>= 7
        }
        bytes.append(UInt8(rest))
    }

    static func appendString(_ value: String, to bytes: inout [UInt8]) {
        var text = value
        text.withUTF8 { utf8 in
            appendVarint(UInt64(utf8.count), to: &bytes)
            bytes.append(contentsOf: utf8)
        }
    }
}

extension ItemNode {
    /// The tree of an item in the binary format; nil for anything else (JSON text from an
    /// earlier version, damaged bytes).
    static func parse(_ data: Data) -> ItemNode? {
        guard ItemFormat.isBinary(data) else { return nil }
        return data.withUnsafeBytes { bytes in
            let source = ItemBytes(bytes)
            var offset = 1
            guard let node = try? read(source, at: &offset), offset == source.bytes.count else { return nil }
            return node
        }
    }

    private static func read(_ source: ItemBytes, at offset: inout Int) throws -> ItemNode {
        let tag = try source.tag(at: offset)
        let start = offset + 1
        offset = start
        switch tag {
        case .null: return ItemNode(.null)
        case .falseValue: return ItemNode(.bool(false))
        case .trueValue: return ItemNode(.bool(true))
        case .int:
            offset += 8
            return ItemNode(.int(Int64(bitPattern: try source.fixed(at: start))))
        case .uint:
            offset += 8
            return ItemNode(.uint(try source.fixed(at: start)))
        case .double:
            offset += 8
            return ItemNode(.double(Double(bitPattern: try source.fixed(at: start))))
        case .date:
            offset += 8
            return ItemNode(.date(Date(timeIntervalSinceReferenceDate: Double(bitPattern: try source.fixed(at: start)))))
        case .string: return ItemNode(.string(try source.string(at: &offset)))
        case .uuid:
            offset += 16
            return ItemNode(.uuid(try source.uuid(at: start)))
        case .array:
            var elements: [ItemNode] = []
            for _ in 0..<(try source.varint(at: &offset)) { elements.append(try read(source, at: &offset)) }
            return ItemNode(.array(elements))
        case .object:
            var fields: [(key: String, value: ItemNode)] = []
            for _ in 0..<(try source.varint(at: &offset)) {
                let key = try source.string(at: &offset)
                fields.append((key, try read(source, at: &offset)))
            }
            return ItemNode(.object(fields))
        }
    }

    /// An object's fields by key; nil for other values.
    var fields: [String: ItemNode]? {
        guard case .object(let fields) = kind else { return nil }
        return Dictionary(fields.map { ($0.key, $0.value) }, uniquingKeysWith: { first, _ in first })
    }

    /// This value's bytes, to compare values.
    func bytes() -> Data {
        var bytes: [UInt8] = []
        write(into: &bytes)
        return Data(bytes)
    }
}

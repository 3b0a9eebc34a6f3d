import Foundation

/// Any JSON value: what a free-form field (`JSON` in a spec), a row of an untyped table or a
/// realtime payload holds.
public enum JSONValue: Hashable, Sendable {
    /// JSON `null`.
    case null
    /// `true` or `false`.
    case bool(Bool)
    /// An integer that fits `Int64`; kept apart from `.number` so ids and counts round-trip exactly.
    case integer(Int64)
    /// Any other number.
    case number(Double)
    /// A string.
    case string(String)
    /// An array, in order.
    case array([JSONValue])
    /// An object, by key.
    case object([String: JSONValue])

    /// The string, if this is one.
    public var stringValue: String? {
        if case .string(let value) = self { return value }
        return nil
    }

    /// The integer, if this is one (or a number without a fraction).
    public var integerValue: Int64? {
        switch self {
        case .integer(let value): value
        case .number(let value) where value.rounded() == value && abs(value) < 9.2e18: Int64(value)
        default: nil
        }
    }

    /// The number, if this is an integer or a number.
    public var doubleValue: Double? {
        switch self {
        case .integer(let value): Double(value)
        case .number(let value): value
        default: nil
        }
    }

    /// The boolean, if this is one.
    public var boolValue: Bool? {
        if case .bool(let value) = self { return value }
        return nil
    }

    /// The object, if this is one.
    public var objectValue: [String: JSONValue]? {
        if case .object(let value) = self { return value }
        return nil
    }

    /// The array, if this is one.
    public var arrayValue: [JSONValue]? {
        if case .array(let value) = self { return value }
        return nil
    }

    /// Whether this is `null`.
    public var isNull: Bool { self == .null }

    /// The member `key` of an object, or `nil`.
    public subscript(key: String) -> JSONValue? {
        objectValue?[key]
    }
}

extension JSONValue: Codable {
    /// Decodes any JSON value; integers that fit `Int64` become ``integer(_:)``.
    public init(from decoder: any Decoder) throws {
        // Parsed already: taken as it is.
        if let tree = decoder as? JSONTreeDecoder {
            self = tree.value
            return
        }
        let container = try decoder.singleValueContainer()
        // Strings first: most values of a row are, and every kind tried before the right one
        // costs a thrown error (a third of decoding a pulled page when strings came fourth).
        // JSON decoders do not turn a string into another kind or back, so the order does not
        // change what a value decodes as; integers still come before doubles.
        if container.decodeNil() {
            self = .null
        } else if let value = try? container.decode(String.self) {
            self = .string(value)
        } else if let value = try? container.decode(Bool.self) {
            self = .bool(value)
        } else if let value = try? container.decode(Int64.self) {
            self = .integer(value)
        } else if let value = try? container.decode(Double.self) {
            self = .number(value)
        } else if let value = try? container.decode([JSONValue].self) {
            self = .array(value)
        } else if let value = try? container.decode([String: JSONValue].self) {
            self = .object(value)
        } else {
            throw DecodingError.dataCorruptedError(in: container, debugDescription: "not a JSON value")
        }
    }

    /// Encodes the value as the JSON it holds.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .null: try container.encodeNil()
        case .bool(let value): try container.encode(value)
        case .integer(let value): try container.encode(value)
        case .number(let value): try container.encode(value)
        case .string(let value): try container.encode(value)
        case .array(let value): try container.encode(value)
        case .object(let value): try container.encode(value)
        }
    }
}

extension JSONValue: ExpressibleByNilLiteral, ExpressibleByBooleanLiteral, ExpressibleByIntegerLiteral,
    ExpressibleByFloatLiteral, ExpressibleByStringLiteral, ExpressibleByArrayLiteral, ExpressibleByDictionaryLiteral
{
    /// `nil` is ``null``.
    public init(nilLiteral: ()) { self = .null }
    /// A Boolean literal is ``bool(_:)``.
    public init(booleanLiteral value: Bool) { self = .bool(value) }
    /// An integer literal is ``integer(_:)``.
    public init(integerLiteral value: Int64) { self = .integer(value) }
    /// A floating-point literal is ``number(_:)``.
    public init(floatLiteral value: Double) { self = .number(value) }
    /// A string literal is ``string(_:)``.
    public init(stringLiteral value: String) { self = .string(value) }
    /// An array literal is ``array(_:)``.
    public init(arrayLiteral elements: JSONValue...) { self = .array(elements) }
    /// A dictionary literal is ``object(_:)``; a repeated key keeps its last value.
    public init(dictionaryLiteral elements: (String, JSONValue)...) {
        self = .object(Dictionary(elements, uniquingKeysWith: { _, last in last }))
    }
}

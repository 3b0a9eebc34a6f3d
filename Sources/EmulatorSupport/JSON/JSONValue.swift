/// A JSON document as the emulator reads and writes it.
///
/// Objects keep their key order so responses come out in the order the models declare
/// and tables keep the column order of the `table_schema` they were created from.
/// Integers and floating-point numbers stay distinct, as Python's `json` keeps them.
package enum JSONValue: Sendable, Equatable, Hashable {
    case null
    case bool(Bool)
    case int(Int64)
    case double(Double)
    case string(String)
    case array([JSONValue])
    case object(JSONObject)

    /// The string, if this is a JSON string.
    package var stringValue: String? {
        if case .string(let value) = self { return value }
        return nil
    }

    /// The integer, if this is a JSON integer (floats with no fraction are not integers).
    package var intValue: Int64? {
        if case .int(let value) = self { return value }
        return nil
    }

    /// The boolean, if this is a JSON boolean.
    package var boolValue: Bool? {
        if case .bool(let value) = self { return value }
        return nil
    }

    /// The object, if this is a JSON object.
    package var objectValue: JSONObject? {
        if case .object(let value) = self { return value }
        return nil
    }

    /// The array, if this is a JSON array.
    package var arrayValue: [JSONValue]? {
        if case .array(let value) = self { return value }
        return nil
    }

    /// `true` for JSON `null`.
    package var isNull: Bool {
        if case .null = self { return true }
        return false
    }

    /// Member lookup on objects; `nil` for other values or missing keys.
    package subscript(key: String) -> JSONValue? {
        objectValue?[key]
    }

    /// The Python type name pydantic mentions in some messages.
    package var pythonTypeName: String {
        switch self {
        case .null: "NoneType"
        case .bool: "bool"
        case .int: "int"
        case .double: "float"
        case .string: "str"
        case .array: "list"
        case .object: "dict"
        }
    }
}

extension JSONValue: ExpressibleByStringLiteral, ExpressibleByIntegerLiteral, ExpressibleByBooleanLiteral,
    ExpressibleByNilLiteral, ExpressibleByArrayLiteral, ExpressibleByDictionaryLiteral, ExpressibleByFloatLiteral
{
    package init(stringLiteral value: String) { self = .string(value) }
    package init(integerLiteral value: Int64) { self = .int(value) }
    package init(booleanLiteral value: Bool) { self = .bool(value) }
    package init(nilLiteral: ()) { self = .null }
    package init(floatLiteral value: Double) { self = .double(value) }
    package init(arrayLiteral elements: JSONValue...) { self = .array(elements) }
    package init(dictionaryLiteral elements: (String, JSONValue)...) {
        self = .object(JSONObject(elements))
    }
}

extension JSONValue {
    /// A string, or `null` when `value` is nil.
    package static func optional(_ value: String?) -> JSONValue {
        value.map(JSONValue.string) ?? .null
    }
}

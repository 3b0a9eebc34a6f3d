import EmulatorSupport
import Foundation

/// How SelfDB's Python code turns a JSON value into text (`str(value)`) or tests it (`if value`),
/// for the places where those words reach the wire (a failed run's `error_message`).
enum PythonText {
    /// Python's truth value: `None`, `False`, zero, and empty strings, lists and dicts are false.
    static func isTruthy(_ value: JSONValue) -> Bool {
        switch value {
        case .null: false
        case .bool(let flag): flag
        case .int(let integer): integer != 0
        case .double(let double): double != 0
        case .string(let text): !text.isEmpty
        case .array(let items): !items.isEmpty
        case .object(let object): !object.isEmpty
        }
    }

    /// `str(value)`: a string is itself; anything else is its `repr`.
    static func str(_ value: JSONValue) -> String {
        if case .string(let text) = value { return text }
        return repr(value)
    }

    /// `repr(value)` of what `json.loads` makes of the value.
    static func repr(_ value: JSONValue) -> String {
        switch value {
        case .null: "None"
        case .bool(let flag): flag ? "True" : "False"
        case .int(let integer): String(integer)
        case .double(let double): floatRepr(double)
        case .string(let text): stringRepr(text)
        case .array(let items): "[" + items.map(repr).joined(separator: ", ") + "]"
        case .object(let object): "{" + object.map { stringRepr($0.key) + ": " + repr($0.value) }.joined(separator: ", ") + "}"
        }
    }

    /// Python's float repr: the shortest text that reads back, always with a `.` or exponent.
    private static func floatRepr(_ double: Double) -> String {
        if double.isNaN { return "nan" }
        if double.isInfinite { return double < 0 ? "-inf" : "inf" }
        let text = "\(double)"
        return text.contains(".") || text.contains("e") ? text : text + ".0"
    }

    /// Single quotes unless the text holds one and no double quote, as Python chooses.
    private static func stringRepr(_ text: String) -> String {
        let quote: Character = text.contains("'") && !text.contains("\"") ? "\"" : "'"
        var result = String(quote)
        for character in text {
            switch character {
            case "\\": result += "\\\\"
            case "\n": result += "\\n"
            case "\r": result += "\\r"
            case "\t": result += "\\t"
            case quote: result += "\\" + String(quote)
            default: result.append(character)
            }
        }
        result.append(quote)
        return result
    }
}

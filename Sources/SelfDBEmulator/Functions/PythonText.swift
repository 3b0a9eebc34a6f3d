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

    /// Whether `text.strip()` is empty: Python's whitespace is Unicode's plus U+001C–U+001F.
    static func isBlank(_ text: String) -> Bool {
        text.unicodeScalars.allSatisfy { $0.properties.isWhitespace || (0x1C...0x1F).contains($0.value) }
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

    /// Python's float repr: the shortest text that reads back; positional from 1e-4 up to
    /// 1e16, with `.0` for a whole number, else exponent form (`1e+16`).
    private static func floatRepr(_ double: Double) -> String {
        if double.isNaN { return "nan" }
        if double.isInfinite { return double < 0 ? "-inf" : "inf" }
        let magnitude = abs(double)
        if double == 0 || (magnitude >= 1e-4 && magnitude < 1e16) {
            if double == double.rounded(), magnitude < 1e16 { return String(format: "%.1f", double) }
            let text = "\(double)"
            if !text.contains("e") { return text }
        }
        // Swift writes `1e+16` as `1e+16` and `1.5e-05` as `1.5e-05`, as Python does.
        let text = "\(double)"
        guard let e = text.firstIndex(of: "e") else { return text }
        let mantissa = text[..<e].hasSuffix(".0") ? String(text[..<e].dropLast(2)) : String(text[..<e])
        var exponent = String(text[text.index(after: e)...])
        let sign = exponent.hasPrefix("-") ? "-" : "+"
        exponent = String(exponent.drop { $0 == "-" || $0 == "+" })
        if exponent.count < 2 { exponent = "0" + exponent }
        return mantissa + "e" + sign + exponent
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
            case _ where character.unicodeScalars.count == 1 && (character.unicodeScalars.first.map { $0.value < 0x20 || $0.value == 0x7F } ?? false):
                result += String(format: "\\x%02x", character.unicodeScalars.first?.value ?? 0)
            default: result.append(character)
            }
        }
        result.append(quote)
        return result
    }
}

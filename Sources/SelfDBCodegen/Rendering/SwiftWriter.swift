/// Builds Swift source text with consistent four-space indentation, so every emitter
/// produces the same layout without tracking indentation itself.
struct SwiftWriter {
    private(set) var text = ""
    private var depth = 0

    /// One line at the current depth (an empty string writes a blank line).
    mutating func line(_ content: String = "") {
        if content.isEmpty {
            text += "\n"
        } else {
            text += String(repeating: "    ", count: depth) + content + "\n"
        }
    }

    /// `header {`, the body one level deeper, then `}` (plus `footer`, e.g. `)`).
    mutating func block(_ header: String, closing: String = "}", _ body: (inout SwiftWriter) -> Void) {
        line(header + " {")
        depth += 1
        body(&self)
        depth -= 1
        line(closing)
    }

    /// `prefix(parameters)suffix {`, the body one level deeper, then `}`. The parameters stay
    /// on the header line when it fits in ``maximumLineLength``; otherwise each goes on a line
    /// of its own and `)suffix {` on the last, the layout swift-format gives a broken list.
    mutating func block(_ prefix: String, parameters: [String], suffix: String = "", _ body: (inout SwiftWriter) -> Void) {
        let header = prefix + "(" + parameters.joined(separator: ", ") + ")" + suffix
        if depth * 4 + header.count + 2 <= Self.maximumLineLength || parameters.isEmpty {
            block(header, body)
            return
        }
        line(prefix + "(")
        indented { writer in
            for (index, parameter) in parameters.enumerated() {
                writer.line(parameter + (index < parameters.count - 1 ? "," : ""))
            }
        }
        block(")" + suffix, body)
    }

    /// The longest header line written on one line; the repository's `.swift-format` allows
    /// 200, and shorter lines read better in a diff.
    static let maximumLineLength = 150

    /// `switch subject {` with its cases at the switch's own depth, as Swift style has it.
    mutating func switchBlock(_ subject: String, _ body: (inout SwiftWriter) -> Void) {
        line("switch \(subject) {")
        body(&self)
        line("}")
    }

    /// Text another writer produced, as it is (at depth zero, where declarations start).
    mutating func append(_ written: String) {
        text += written
    }

    /// Lines one level deeper.
    mutating func indented(_ body: (inout SwiftWriter) -> Void) {
        depth += 1
        body(&self)
        depth -= 1
    }

    /// A `///` comment; nothing for `nil` or blank text. Multi-line text keeps its lines.
    mutating func documentation(_ text: String?) {
        guard let text, !text.trimmingWhitespace.isEmpty else { return }
        for line in text.trimmingWhitespace.split(separator: "\n", omittingEmptySubsequences: false) {
            let trimmed = String(line).trimmingTrailingWhitespace
            self.line(trimmed.isEmpty ? "///" : "/// " + trimmed)
        }
    }

    /// Removes the blank line a loop may leave before a closing brace.
    mutating func trimTrailingBlankLine() {
        while text.hasSuffix("\n\n") { text.removeLast() }
    }
}

extension String {
    var trimmingWhitespace: String {
        var result = Substring(self)
        while let first = result.first, first.isWhitespace { result.removeFirst() }
        while let last = result.last, last.isWhitespace { result.removeLast() }
        return String(result)
    }

    var trimmingTrailingWhitespace: String {
        var result = Substring(self)
        while let last = result.last, last.isWhitespace { result.removeLast() }
        return String(result)
    }

    /// The text as a Swift string literal.
    var swiftLiteral: String {
        var result = "\""
        for scalar in unicodeScalars {
            switch scalar {
            case "\\": result += "\\\\"
            case "\"": result += "\\\""
            case "\n": result += "\\n"
            case "\r": result += "\\r"
            case "\t": result += "\\t"
            case "\0": result += "\\0"
            default:
                if scalar.value < 0x20 || scalar.value == 0x7F {
                    result += "\\u{\(String(scalar.value, radix: 16))}"
                } else {
                    result.unicodeScalars.append(scalar)
                }
            }
        }
        return result + "\""
    }
}

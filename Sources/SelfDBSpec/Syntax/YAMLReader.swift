import Foundation
import Yams

/// Reads YAML text into a located `SpecNode` tree, turning every libyaml and Yams failure
/// into a `Diagnostic` at the position it names.
public enum YAMLReader {
    /// The outcome of reading one document.
    public struct Result: Sendable {
        /// The root node, or `nil` when the text could not be read at all.
        public var root: SpecNode?
        /// Syntax errors.
        public var diagnostics: [Diagnostic]
    }

    /// The largest spec read, in bytes. SelfDB's own spec is 17 KB, a synthetic spec of 900
    /// declarations 174 KB; past this size a file is more likely a mistake or an attack than
    /// a spec, and reading it would cost every build that applies the plugin.
    public static let maximumFileSize = 4 << 20

    /// Reads `text`, naming `file` in locations.
    public static func read(_ text: String, file: String) -> Result {
        guard text.utf8.count <= maximumFileSize else {
            return Result(
                root: nil,
                diagnostics: [
                    .error("the file is \(text.utf8.count) bytes; a spec may have at most \(maximumFileSize) (split it into several specs)", at: SourceLocation(file: file, line: 1, column: 1))
                ]
            )
        }
        // libyaml rejects NUL and most control characters with a reader error whose offset
        // we can place; checking first gives a clearer message and keeps them out of C code.
        if let bad = firstForbiddenCharacter(in: text) {
            return Result(
                root: nil,
                diagnostics: [
                    .error("the file contains a control character (U+\(hex(bad.scalar))) that YAML does not allow", at: SourceLocation(file: file, line: bad.line, column: bad.column))
                ]
            )
        }
        if let problem = YAMLExpansionCheck.problem(in: text) {
            return Result(
                root: nil,
                diagnostics: [
                    .error(problem.message, at: SourceLocation(file: file, line: problem.line, column: problem.column))
                ]
            )
        }
        let node: Node?
        do {
            node = try Yams.compose(yaml: text)
        } catch let error as YamlError {
            return Result(root: nil, diagnostics: [diagnostic(for: error, text: text, file: file)])
        } catch {
            return Result(
                root: nil,
                diagnostics: [
                    .error("could not read YAML: \(error)", at: SourceLocation(file: file, line: 1, column: 1))
                ]
            )
        }
        guard let node else {
            return Result(
                root: nil,
                diagnostics: [
                    .error("the spec is empty; expected a mapping with 'models', 'endpoints' or 'tables'", at: SourceLocation(file: file, line: 1, column: 1))
                ]
            )
        }
        var diagnostics: [Diagnostic] = []
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
        let root = convert(node, file: file, lines: lines, diagnostics: &diagnostics)
        return Result(root: root, diagnostics: diagnostics)
    }

    // MARK: - Conversion

    private static func convert(_ node: Node, file: String, lines: [Substring], diagnostics: inout [Diagnostic]) -> SpecNode {
        let location = self.location(node.mark, file: file)
        switch node {
        case .scalar(let scalar):
            let quoted =
                scalar.style == .singleQuoted || scalar.style == .doubleQuoted
                || scalar.style == .literal || scalar.style == .folded
            return .scalar(.init(text: scalar.string, isQuoted: quoted, location: location, textColumn: textColumn(of: scalar, lines: lines)))
        case .mapping(let mapping):
            var entries: [SpecNode.Entry] = []
            for (key, value) in mapping {
                guard case .scalar(let keyScalar) = key else {
                    diagnostics.append(.error("mapping keys must be plain names, not \(key.isMapping ? "mappings" : "sequences")", at: self.location(key.mark, file: file)))
                    continue
                }
                let keyNode = SpecNode.Scalar(
                    text: keyScalar.string,
                    isQuoted: keyScalar.style == .singleQuoted || keyScalar.style == .doubleQuoted,
                    location: self.location(key.mark, file: file),
                    textColumn: textColumn(of: keyScalar, lines: lines)
                )
                entries.append(.init(key: keyNode, value: convert(value, file: file, lines: lines, diagnostics: &diagnostics)))
            }
            return .mapping(.init(entries: entries, location: location))
        case .sequence(let sequence):
            return .sequence(.init(items: sequence.map { convert($0, file: file, lines: lines, diagnostics: &diagnostics) }, location: location))
        case .alias:
            // Yams dereferences aliases while composing; an alias node reaching us is unexpected.
            diagnostics.append(.error("unresolved YAML alias", at: location))
            return .scalar(.init(text: "", isQuoted: false, location: location))
        }
    }

    /// Where the scalar's text starts on its line, when the line holds it verbatim: plain,
    /// or quoted without escapes, and not folded over several lines. Checking against the
    /// source keeps this exact whatever line breaks and escapes libyaml saw.
    private static func textColumn(of scalar: Node.Scalar, lines: [Substring]) -> Int? {
        guard let mark = scalar.mark, mark.line >= 1, mark.line <= lines.count, mark.column >= 1 else { return nil }
        let quote: Unicode.Scalar?
        switch scalar.style {
        case .plain, .any: quote = nil
        case .singleQuoted: quote = "'"
        case .doubleQuoted: quote = "\""
        case .literal, .folded: return nil
        }
        let source = Array(lines[mark.line - 1].unicodeScalars)
        var start = mark.column - 1
        if let quote {
            guard start < source.count, source[start] == quote else { return nil }
            start += 1
        }
        let text = Array(scalar.string.unicodeScalars)
        let end = start + text.count
        guard end <= source.count, source[start..<end].elementsEqual(text) else { return nil }
        if let quote, !(end < source.count && source[end] == quote) { return nil }
        return start + 1
    }

    private static func location(_ mark: Mark?, file: String) -> SourceLocation {
        SourceLocation(file: file, line: mark?.line ?? 1, column: mark?.column ?? 1)
    }

    // MARK: - Errors

    private static func diagnostic(for error: YamlError, text: String, file: String) -> Diagnostic {
        switch error {
        case .scanner(let context, let problem, let mark, _),
            .parser(let context, let problem, let mark, _),
            .composer(let context, let problem, let mark, _):
            var message = "invalid YAML: \(problem)"
            // The context only helps when it points somewhere else ("while parsing a flow
            // mapping" names the unclosed '{').
            if let context, !context.text.isEmpty, context.mark.line != mark.line || context.mark.column != mark.column {
                message += " (\(context.text) at line \(context.mark.line), column \(context.mark.column))"
            }
            if character(atLine: mark.line, column: mark.column, in: text) == "\t" {
                message += "; YAML indentation must use spaces, not tabs"
            }
            return .error(message, at: SourceLocation(file: file, line: mark.line, column: mark.column))
        case .reader(let problem, let offset, _, _):
            let position = offset.map { lineAndColumn(ofUTF8Offset: $0, in: text) } ?? (1, 1)
            return .error("invalid YAML: \(problem)", at: SourceLocation(file: file, line: position.0, column: position.1))
        case .duplicatedKeysInMapping(let duplicates, let context):
            let key = duplicates.first ?? "?"
            let second = secondOccurrence(ofKey: key, after: context.mark, in: text)
            let line = second?.line ?? context.mark.line
            let column = second?.column ?? context.mark.column
            let first = "first defined at line \(context.mark.line)"
            return .error("duplicate key '\(key)' (\(first)); each key may appear once in a mapping", at: SourceLocation(file: file, line: line, column: column))
        case .dataCouldNotBeDecoded:
            return .error("the file is not valid UTF-8", at: SourceLocation(file: file, line: 1, column: 1))
        default:
            return .error("could not read YAML: \(error)", at: SourceLocation(file: file, line: 1, column: 1))
        }
    }

    /// Yams reports a duplicate key at its first occurrence; the second is the one to fix.
    /// Block mappings put sibling keys at the same column, so look there on later lines.
    private static func secondOccurrence(ofKey key: String, after mark: Mark, in text: String) -> (line: Int, column: Int)? {
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
        guard mark.line >= 1, mark.line <= lines.count else { return nil }
        let indent = mark.column - 1
        var index = mark.line
        while index < lines.count {
            let line = lines[index]
            let leading = line.prefix { $0 == " " }.count
            let content = line.dropFirst(leading)
            if leading < indent && !content.isEmpty && !content.hasPrefix("#") { return nil }
            if leading == indent {
                for candidate in [key, "\"\(key)\"", "'\(key)'"] where content.hasPrefix(candidate) {
                    let rest = content.dropFirst(candidate.count).drop { $0 == " " }
                    if rest.hasPrefix(":") { return (index + 1, indent + 1) }
                }
            }
            index += 1
        }
        return nil
    }

    private static func character(atLine line: Int, column: Int, in text: String) -> Unicode.Scalar? {
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
        guard line >= 1, line <= lines.count, column >= 1 else { return nil }
        let scalars = lines[line - 1].unicodeScalars
        guard column <= scalars.count else { return nil }
        return scalars[scalars.index(scalars.startIndex, offsetBy: column - 1)]
    }

    private static func lineAndColumn(ofUTF8Offset offset: Int, in text: String) -> (Int, Int) {
        var line = 1
        var column = 1
        var consumed = 0
        for scalar in text.unicodeScalars {
            if consumed >= offset { break }
            consumed += String(scalar).utf8.count
            if scalar == "\n" {
                line += 1
                column = 1
            } else {
                column += 1
            }
        }
        return (line, column)
    }

    private static func firstForbiddenCharacter(in text: String) -> (scalar: Unicode.Scalar, line: Int, column: Int)? {
        var line = 1
        var column = 1
        for scalar in text.unicodeScalars {
            if scalar == "\n" {
                line += 1
                column = 1
                continue
            }
            let value = scalar.value
            let allowed = value == 0x09 || value == 0x0D || (value >= 0x20 && value != 0x7F && !(0x80...0x9F).contains(value) && value != 0xFFFE && value != 0xFFFF)
            if !allowed { return (scalar, line, column) }
            column += 1
        }
        return nil
    }

    private static func hex(_ scalar: Unicode.Scalar) -> String {
        let digits = String(scalar.value, radix: 16, uppercase: true)
        return String(repeating: "0", count: max(0, 4 - digits.count)) + digits
    }
}

extension Node {
    fileprivate var isMapping: Bool {
        if case .mapping = self { return true }
        return false
    }
}

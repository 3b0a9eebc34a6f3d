import Foundation
import SelfDBSpec

/// Writes tables as spec YAML, in the form of the spec examples: one entry per table under
/// `tables:` (two spaces in), its keys four in, a column a line (`name: type` when nothing
/// else is said, a flow mapping otherwise). Deterministic: the same tables give the same bytes.
public enum TableSpecRenderer {
    /// A whole spec file holding `tables`.
    public static func file(_ tables: [IntrospectedTable], source: String) -> String {
        var lines = [
            "# Tables of the SelfDB server at \(source), written by `selfdb-codegen introspect`.",
            "# Run it again to take in what changed on the server: what you add by hand",
            "# (descriptions, `swift:` names, `sync:`) is kept.",
            "spec: 1",
            "description: \(scalar("Tables of the SelfDB server at \(source)."))",
            "",
            "tables:",
        ]
        for (index, table) in tables.enumerated() {
            if index > 0 { lines.append("") }
            lines += entry(table)
        }
        return lines.joined(separator: "\n") + "\n"
    }

    /// One table's entry under `tables:`, its lines without a final newline. `keptLines` (the
    /// user's own keys, such as `sync:`, as written) go after the table's own keys.
    public static func entry(_ table: IntrospectedTable, keptLines: [String] = []) -> [String] {
        var lines = ["  \(key(table.modelName)):"]
        lines += table.notes.map { "    # \($0)" }
        lines.append("    table: \(scalar(table.tableName))")
        if let description = table.description { lines.append("    description: \(scalar(description))") }
        if table.isPublic { lines.append("    public: true") }
        if table.realtime { lines.append("    realtime: true") }
        lines += keptLines
        lines.append("    columns:")
        for column in table.columns {
            if let note = column.note { lines.append("      # \(note)") }
            lines.append("      \(key(column.name)): \(value(of: column, isPrimaryKey: column.name == table.primaryKey))")
        }
        return lines
    }

    static func value(of column: IntrospectedColumn, isPrimaryKey: Bool) -> String {
        var fields = ["type: \(column.type.rawValue)"]
        if isPrimaryKey { fields.append("primaryKey: true") }
        if !column.nullable, !isPrimaryKey { fields.append("nullable: false") }
        if let value = column.defaultValue { fields.append("default: \(literal(value))") }
        if let swiftName = column.swiftName { fields.append("swift: \(scalar(swiftName))") }
        if let description = column.description { fields.append("description: \(scalar(description))") }
        return fields.count == 1 ? column.type.rawValue : "{ \(fields.joined(separator: ", ")) }"
    }

    static func literal(_ value: LiteralValue) -> String {
        switch value {
        case .null: "null"
        case .bool(let flag): flag ? "true" : "false"
        case .int(let number): String(number)
        case .double(let number): String(number)
        case .string(let text): quoted(text)
        }
    }

    /// A mapping key: SQL and Swift names are plain scalars.
    static func key(_ text: String) -> String {
        isPlain(text) ? text : quoted(text)
    }

    /// Text as a YAML scalar: plain when that reads back as the same text, quoted otherwise.
    static func scalar(_ text: String) -> String {
        isPlain(text) ? text : quoted(text)
    }

    private static let reservedWords: Set<String> = ["true", "false", "yes", "no", "on", "off", "null", "~", "y", "n"]

    private static func isPlain(_ text: String) -> Bool {
        guard let first = text.unicodeScalars.first, !reservedWords.contains(text.lowercased()), text.trimmingCharacters(in: .whitespaces) == text
        else { return false }
        if CharacterSet.decimalDigits.contains(first) || first == "-" || first == "." || first == "+" { return false }
        let allowed = CharacterSet.alphanumerics.union(CharacterSet(charactersIn: "_ .,'()/`"))
        return text.unicodeScalars.allSatisfy { allowed.contains($0) && $0.isASCII }
    }

    /// A double-quoted scalar with JSON's escapes (YAML reads them alike).
    static func quoted(_ text: String) -> String {
        var result = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": result += "\\\""
            case "\\": result += "\\\\"
            case "\n": result += "\\n"
            case "\t": result += "\\t"
            case "\r": result += "\\r"
            default:
                if scalar.value < 0x20 || scalar.value == 0x7F {
                    result += String(format: "\\u%04X", scalar.value)
                } else {
                    result.unicodeScalars.append(scalar)
                }
            }
        }
        return result + "\""
    }
}

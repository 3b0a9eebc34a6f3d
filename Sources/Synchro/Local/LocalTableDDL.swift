import Foundation
import GRDB

/// Checks and spells the DDL of local-only tables. Types and defaults go into the SQL as
/// written (they are SQL), so they are checked to be exactly one type name and one default:
/// a stray comma or constraint would otherwise add columns or rules nobody asked for.
enum LocalTableDDL {
    /// Words that start a constraint: in a type string they mean a constraint was smuggled in.
    private static let constraintWords: Set<String> = [
        "PRIMARY", "KEY", "NOT", "NULL", "DEFAULT", "UNIQUE", "CHECK", "REFERENCES", "COLLATE", "GENERATED",
        "ALWAYS", "AS", "CONSTRAINT", "AUTOINCREMENT", "ON", "CONFLICT", "STORED", "VIRTUAL",
    ]

    /// `name` as an SQL identifier. GRDB's `quotedDatabaseIdentifier` does not double a `"`
    /// inside the name, which an app's own table name may hold.
    static func quote(_ name: String) -> String {
        "\"" + name.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }

    /// Any non-empty name without NUL, quotes included (``quote(_:)`` doubles them), unlike a
    /// server's names, which go through GRDB's quoting.
    static func isUsableName(_ name: String) -> Bool {
        !name.isEmpty && !name.contains("\0") && name.utf8.count <= 128
    }

    /// The columns of `table`, by name (bound, so any name works).
    static func columns(of table: String, in db: Database) throws -> [String] {
        try String.fetchAll(db, sql: "SELECT name FROM pragma_table_info(?)", arguments: [table])
    }

    static func checkName(_ name: String) throws {
        guard isUsableName(name) else { throw SynchroError.databaseError(underlying: LocalTableError.invalidName(name)) }
        let lower = name.lowercased()
        if lower.hasPrefix("_synchro") || lower.hasPrefix("sqlite_") {
            throw SynchroError.databaseError(underlying: LocalTableError.reservedName(name))
        }
    }

    /// Column names are unique without regard to case, as SQLite compares them.
    static func checkDistinct(_ names: [String]) throws {
        var seen: Set<String> = []
        for name in names {
            guard isUsableName(name) else { throw SynchroError.databaseError(underlying: LocalTableError.invalidName(name)) }
            guard seen.insert(name.lowercased()).inserted else {
                throw SynchroError.databaseError(underlying: LocalTableError.duplicateColumn(name))
            }
        }
    }

    /// `"name" TYPE [PRIMARY KEY] [NOT NULL] [DEFAULT value]`.
    static func definition(of column: ColumnDef, inlineKey: Bool) throws -> String {
        guard isUsableName(column.name) else {
            throw SynchroError.databaseError(underlying: LocalTableError.invalidName(column.name))
        }
        guard isTypeName(column.type) else {
            throw SynchroError.databaseError(underlying: LocalTableError.invalidType(column: column.name, type: column.type))
        }
        var parts = [quote(column.name), column.type.trimmingCharacters(in: .whitespaces)]
        if column.primaryKey, inlineKey { parts.append("PRIMARY KEY") }
        if !column.nullable { parts.append("NOT NULL") }
        if let value = column.defaultValue {
            guard isDefault(value) else {
                throw SynchroError.databaseError(underlying: LocalTableError.invalidDefault(column: column.name, value: value))
            }
            parts.append("DEFAULT \(value.trimmingCharacters(in: .whitespaces))")
        }
        return parts.joined(separator: " ")
    }

    /// SQLite's type-name: one or more words, then optionally `(n)` or `(n, m)`.
    static func isTypeName(_ type: String) -> Bool {
        let text = type.trimmingCharacters(in: .whitespaces)
        let open = text.firstIndex(of: "(")
        let words = text[..<(open ?? text.endIndex)].split(whereSeparator: \.isWhitespace)
        guard !words.isEmpty else { return false }
        for word in words {
            guard let first = word.first, first.isASCII, first.isLetter || first == "_",
                word.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "_") }),
                !constraintWords.contains(word.uppercased())
            else { return false }
        }
        guard let open else { return true }
        guard text.hasSuffix(")") else { return false }
        let sizes = text[text.index(after: open)..<text.index(before: text.endIndex)].split(separator: ",", omittingEmptySubsequences: false)
        return (1...2).contains(sizes.count)
            && sizes.allSatisfy { size in
                let number = size.trimmingCharacters(in: .whitespaces)
                return Double(number) != nil && number.allSatisfy { $0.isNumber || "+-.".contains($0) }
            }
    }

    /// A literal, `CURRENT_TIME`/`_DATE`/`_TIMESTAMP`, a blob literal, or one expression in
    /// parentheses (the only forms SQLite's DEFAULT takes).
    static func isDefault(_ value: String) -> Bool {
        let text = value.trimmingCharacters(in: .whitespaces)
        if LocalTable.literalDefault(text) != nil { return true }
        if ["CURRENT_TIME", "CURRENT_DATE", "CURRENT_TIMESTAMP"].contains(text.uppercased()) { return true }
        if text.count >= 3, text.first == "X" || text.first == "x", text.dropFirst().first == "'", text.hasSuffix("'") {
            let hex = text.dropFirst(2).dropLast()
            return hex.count.isMultiple(of: 2) && hex.allSatisfy(\.isHexDigit)
        }
        return isOneParenthesizedExpression(text)
    }

    /// `(` … `)` where the first parenthesis closes at the very end, outside quotes, with no
    /// `;` outside quotes.
    private static func isOneParenthesizedExpression(_ text: String) -> Bool {
        guard text.first == "(", text.last == ")" else { return false }
        var depth = 0
        var quote: Character?
        for (offset, character) in text.enumerated() {
            if let open = quote {
                if character == open { quote = nil }
                continue
            }
            switch character {
            case "'", "\"": quote = character
            case ";": return false
            case "(": depth += 1
            case ")":
                depth -= 1
                if depth == 0, offset != text.count - 1 { return false }
            default: break
            }
        }
        return depth == 0 && quote == nil
    }
}

/// Quoting and validation of SQL identifiers.
///
/// Every identifier that reaches SQL text is first checked against a strict pattern and
/// then double-quoted anyway, so neither check alone has to be perfect.
package enum SQLIdentifier {
    /// `"name"` with embedded quotes doubled.
    package static func quote(_ name: String) -> String {
        // Names rarely hold a quote, and this runs for every statement a push builds:
        // Foundation's replacing is skipped when there is nothing to replace.
        guard name.utf8.contains(UInt8(ascii: "\"")) else { return "\"" + name + "\"" }
        return "\"" + name.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }

    /// Table names: `^[a-z][a-z0-9_]*$`, 1–63 characters (SelfDB's rule).
    package static func isValidTableName(_ name: String) -> Bool {
        guard (1...63).contains(name.utf8.count), let first = name.utf8.first, isLower(first) else { return false }
        return name.utf8.allSatisfy { isLower($0) || isDigit($0) || $0 == UInt8(ascii: "_") }
    }

    /// Column names: `^[A-Za-z_][A-Za-z0-9_]*$`, 1–63 characters (a Postgres identifier
    /// that needs no quoting).
    package static func isValidColumnName(_ name: String) -> Bool {
        guard (1...63).contains(name.utf8.count), let first = name.utf8.first,
            isLower(first) || isUpper(first) || first == UInt8(ascii: "_")
        else { return false }
        return name.utf8.allSatisfy { isLower($0) || isUpper($0) || isDigit($0) || $0 == UInt8(ascii: "_") }
    }

    package static let reservedTableNames: Set<String> = [
        "users", "user", "table", "select", "insert", "update", "delete", "from", "where",
    ]

    private static func isLower(_ byte: UInt8) -> Bool { byte >= UInt8(ascii: "a") && byte <= UInt8(ascii: "z") }
    private static func isUpper(_ byte: UInt8) -> Bool { byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z") }
    private static func isDigit(_ byte: UInt8) -> Bool { byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") }
}

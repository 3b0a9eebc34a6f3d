/// Quoting for identifiers and literals spliced into generated SQL (trigger bodies cannot
/// take bound parameters).
enum SQLText {
    /// `"name"`, inner quotes doubled: any table or column name SQLite accepts.
    static func identifier(_ name: String) -> String {
        "\"" + name.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }

    /// `'text'`, inner quotes doubled.
    static func literal(_ text: String) -> String {
        "'" + text.replacingOccurrences(of: "'", with: "''") + "'"
    }
}

import Foundation

/// The checks SelfDB runs on a query before it reaches the database (`validate_query_security`),
/// with its words, and the emulator's own limits on what it can run.
enum SQLQueryGuard {
    /// SelfDB's `DANGEROUS_PATTERNS`, matched case-insensitively.
    private static let prohibited: [NSRegularExpression] = [
        #"\bpg_read_file\b"#, #"\bpg_write_file\b"#, #"\bpg_ls_dir\b"#, #"\blo_import\b"#, #"\blo_export\b"#,
        #"\bcopy\s+.*\s+to\s+program\b"#, #"\bcopy\s+.*\s+from\s+program\b"#, #"\bexecute\s+format\b"#, #";\s*--"#,
    ].compactMap { try? NSRegularExpression(pattern: $0, options: [.caseInsensitive]) }

    private static let modification = try? NSRegularExpression(pattern: #"\b(insert\s+into|update|delete\s+from|drop\s+table|truncate)\s+"#)
    private static let protectedTables = ["system_config", "sql_history", "sql_snippets", "pg_catalog", "information_schema"]

    /// 400 for what SelfDB refuses to run.
    static func check(_ query: String) throws(APIError) {
        let lower = query.lowercased()
        let whole = NSRange(lower.startIndex..., in: lower)
        for pattern in prohibited where pattern.firstMatch(in: lower, range: whole) != nil {
            throw APIError.badRequest("Query contains prohibited pattern for security reasons")
        }
        // Only the first modifying keyword is looked at, as SelfDB's `re.search` does.
        guard let match = modification?.firstMatch(in: lower, range: whole), let end = Range(match.range, in: lower)?.upperBound else { return }
        let remaining = lower[end...].trimmingCharacters(in: .whitespacesAndNewlines)
        for table in protectedTables where remaining.hasPrefix(table) {
            throw APIError.badRequest("Cannot modify protected system table: \(table)")
        }
    }

    /// SelfDB's `is_read_only_query`: the query's first word.
    static func isReadOnly(_ query: String) -> Bool {
        let lower = query.lowercased()
        return ["select", "explain", "show", "describe", "with"].contains { lower.hasPrefix($0) }
    }

    /// What the emulator runs: reads and row changes on the app's tables, in SQLite's dialect.
    ///
    /// Schema changes would bypass the emulator's table registry (make tables through
    /// `/tables`), and its own bookkeeping (`_selfdb_…`, `_synchro_…`, SQLite's and GRDB's
    /// tables) is not the app's: both are refused with a 400 that says so, before anything runs.
    static func checkEmulatorScope(_ statementSQL: String) throws(APIError) {
        let words = SQLTokens.words(in: statementSQL)
        guard let first = words.first else { return }
        let allowed: Set<String> = ["select", "with", "values", "insert", "update", "delete", "replace", "explain"]
        guard allowed.contains(first) else {
            throw APIError.badRequest(
                "the SelfDB emulator runs SELECT, INSERT, UPDATE and DELETE on the app's tables only; '\(first.uppercased())' is not run here (create and change tables through /tables)"
            )
        }
        for word in words where internalPrefixes.contains(where: word.hasPrefix) {
            throw APIError.badRequest("the SelfDB emulator keeps its own tables out of SQL: '\(word)' cannot be used here")
        }
    }

    private static let internalPrefixes = ["_selfdb_", "_synchro", "sqlite_", "grdb_", "pragma_"]
}

/// The identifiers and keywords of a statement, lower-cased, with quoted identifiers unquoted and
/// string literals and comments skipped.
enum SQLTokens {
    static func words(in sql: String) -> [String] {
        var words: [String] = []
        let scalars = Array(sql.unicodeScalars)
        var index = 0
        func isWordScalar(_ scalar: Unicode.Scalar) -> Bool {
            scalar.properties.isAlphabetic || ("0"..."9").contains(scalar) || scalar == "_" || scalar == "$"
        }
        while index < scalars.count {
            let scalar = scalars[index]
            switch scalar {
            case "'":
                // A string literal: skipped ('' is an escaped quote inside it).
                index += 1
                while index < scalars.count {
                    if scalars[index] == "'" {
                        if index + 1 < scalars.count, scalars[index + 1] == "'" {
                            index += 2
                            continue
                        }
                        break
                    }
                    index += 1
                }
                index += 1
            case "\"", "`", "[":
                let close: Unicode.Scalar = scalar == "[" ? "]" : scalar
                var word = ""
                index += 1
                while index < scalars.count {
                    if scalars[index] == close {
                        if close != "]", index + 1 < scalars.count, scalars[index + 1] == close {
                            word.unicodeScalars.append(close)
                            index += 2
                            continue
                        }
                        break
                    }
                    word.unicodeScalars.append(scalars[index])
                    index += 1
                }
                index += 1
                words.append(word.lowercased())
            case "-" where index + 1 < scalars.count && scalars[index + 1] == "-":
                while index < scalars.count, scalars[index] != "\n" { index += 1 }
            case "/" where index + 1 < scalars.count && scalars[index + 1] == "*":
                index += 2
                while index + 1 < scalars.count, !(scalars[index] == "*" && scalars[index + 1] == "/") { index += 1 }
                index += 2
            default:
                guard isWordScalar(scalar) else {
                    index += 1
                    continue
                }
                var word = ""
                while index < scalars.count, isWordScalar(scalars[index]) {
                    word.unicodeScalars.append(scalars[index])
                    index += 1
                }
                words.append(word.lowercased())
            }
        }
        return words
    }
}

import Foundation

/// The checks SelfDB runs on a query before it reaches the database (`validate_query_security`),
/// with its words, and the emulator's own limits on what it can run.
enum SQLQueryGuard {
    /// SelfDB's `DANGEROUS_PATTERNS`, matched case-insensitively (`.` written `[^\n]`: Python's
    /// dot stops at a newline only, ICU's at every line terminator).
    private static let prohibited: [NSRegularExpression] = [
        #"\bpg_read_file\b"#, #"\bpg_write_file\b"#, #"\bpg_ls_dir\b"#, #"\blo_import\b"#, #"\blo_export\b"#,
        #"\bcopy\s+[^\n]*\s+to\s+program\b"#, #"\bcopy\s+[^\n]*\s+from\s+program\b"#, #"\bexecute\s+format\b"#, #";\s*--"#,
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
    /// tables) is not the app's: both are refused with a 400 that says so. The whole query is
    /// checked on its text, statement by statement, before a single statement is compiled:
    /// SQLite applies some pragmas while it compiles them. A name is looked for in identifiers
    /// and in string literals alike, as SQLite takes `FROM '_selfdb_users'` for a table name.
    static func checkEmulatorScope(_ query: String) throws(APIError) {
        for statement in SQLTokens.statements(in: query) {
            var words = statement.filter { $0.kind == .word }.map(\.text)
            // EXPLAIN [QUERY PLAN] runs nothing, but compiles what follows: that must pass too.
            if words.first == "explain" {
                words.removeFirst()
                if words.starts(with: ["query", "plan"]) { words.removeFirst(2) }
            }
            guard let first = words.first else { continue }
            guard allowedFirstWords.contains(first) else {
                throw APIError.badRequest(
                    "the SelfDB emulator runs SELECT, INSERT, UPDATE and DELETE on the app's tables only; '\(first.uppercased())' is not run here (create and change tables through /tables)"
                )
            }
            if let word = words.first(where: refusedWords.contains) {
                throw APIError.badRequest("the SelfDB emulator runs SELECT, INSERT, UPDATE and DELETE on the app's tables only; '\(word.uppercased())' is not run here")
            }
            for token in statement where internalPrefixes.contains(where: token.text.hasPrefix) {
                throw APIError.badRequest("the SelfDB emulator keeps its own tables out of SQL: '\(token.text)' cannot be used here")
            }
        }
    }

    private static let allowedFirstWords: Set<String> = ["select", "with", "values", "insert", "update", "delete", "replace"]
    /// Words that change the connection or the file wherever they stand.
    private static let refusedWords: Set<String> = ["pragma", "attach", "detach", "vacuum", "reindex", "analyze", "create", "drop", "alter"]
    private static let internalPrefixes = ["_selfdb_", "_synchro", "sqlite_", "grdb_", "pragma_"]
}

/// The tokens of SQL text that matter to ``SQLQueryGuard``: words (keywords and bare
/// identifiers), quoted identifiers and string literals, lower-cased, with comments dropped.
enum SQLTokens {
    struct Token: Equatable {
        enum Kind { case word, quoted, literal, semicolon }
        var kind: Kind
        var text: String
    }

    /// The tokens of each statement (split at `;` outside quotes and comments), empty ones dropped.
    static func statements(in sql: String) -> [[Token]] {
        var statements: [[Token]] = [[]]
        for token in tokens(in: sql) {
            if token.kind == .semicolon { statements.append([]) } else { statements[statements.count - 1].append(token) }
        }
        return statements.filter { !$0.isEmpty }
    }

    static func tokens(in sql: String) -> [Token] {
        var tokens: [Token] = []
        let scalars = Array(sql.unicodeScalars)
        var index = 0
        func isWordScalar(_ scalar: Unicode.Scalar) -> Bool {
            scalar.properties.isAlphabetic || ("0"..."9").contains(scalar) || scalar == "_" || scalar == "$"
        }
        /// Reads up to `close` (doubled, it stands for itself), from just after the opening one.
        func quoted(until close: Unicode.Scalar, doubling: Bool) -> String {
            var text = ""
            while index < scalars.count {
                if scalars[index] == close {
                    if doubling, index + 1 < scalars.count, scalars[index + 1] == close {
                        text.unicodeScalars.append(close)
                        index += 2
                        continue
                    }
                    break
                }
                text.unicodeScalars.append(scalars[index])
                index += 1
            }
            index += 1
            return text.lowercased()
        }
        while index < scalars.count {
            let scalar = scalars[index]
            switch scalar {
            case ";":
                tokens.append(Token(kind: .semicolon, text: ";"))
                index += 1
            case "'":
                index += 1
                tokens.append(Token(kind: .literal, text: quoted(until: "'", doubling: true)))
            case "\"", "`":
                index += 1
                tokens.append(Token(kind: .quoted, text: quoted(until: scalar, doubling: true)))
            case "[":
                index += 1
                tokens.append(Token(kind: .quoted, text: quoted(until: "]", doubling: false)))
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
                tokens.append(Token(kind: .word, text: word.lowercased()))
            }
        }
        return tokens
    }
}

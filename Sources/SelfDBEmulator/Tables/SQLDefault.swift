import EmulatorSupport

/// Turns a column default given as raw SQL (SelfDB passes it straight to Postgres, so a
/// text default arrives as `'x'`) into a literal that is safe to put in SQLite DDL.
enum SQLDefault {
    struct Unsupported: Error {
        var text: String
    }

    static func literal(_ raw: String, kind: ColumnKind) throws(Unsupported) -> String {
        let text = raw.trimmingSpaces
        let upper = text.uppercased()
        if upper == "NULL" { return "NULL" }
        if upper == "TRUE" || upper == "FALSE" {
            return kind == .boolean || kind == .integer || kind == .bigint ? (upper == "TRUE" ? "1" : "0") : "'\(upper.lowercased())'"
        }
        if ["NOW()", "CURRENT_TIMESTAMP", "CURRENT_TIMESTAMP()"].contains(upper) {
            return "(strftime('%Y-%m-%dT%H:%M:%fZ','now'))"
        }
        if upper == "CURRENT_DATE" { return "(date('now'))" }
        if let integer = Int64(text) { return String(integer) }
        if let number = Double(text), number.isFinite { return String(number) }
        // A quoted string, possibly with a Postgres cast such as '{}'::jsonb.
        var body = Substring(text)
        if let castRange = body.range(of: "::") {
            let cast = body[castRange.upperBound...]
            guard cast.allSatisfy({ $0.isLetter || $0 == " " || $0 == "_" }) else { throw Unsupported(text: raw) }
            body = body[..<castRange.lowerBound]
        }
        guard body.count >= 2, body.first == "'", body.last == "'" else { throw Unsupported(text: raw) }
        let inner = body.dropFirst().dropLast()
        // Inside, quotes must come doubled; anything else would end the literal.
        var index = inner.startIndex
        while index < inner.endIndex {
            if inner[index] == "'" {
                let next = inner.index(after: index)
                guard next < inner.endIndex, inner[next] == "'" else { throw Unsupported(text: raw) }
                index = inner.index(after: next)
            } else {
                index = inner.index(after: index)
            }
        }
        return "'\(inner)'"
    }
}

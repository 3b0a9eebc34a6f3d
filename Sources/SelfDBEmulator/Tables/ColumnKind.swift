import EmulatorSupport

/// What a `table_schema` type means, independent of how the client spelt it.
///
/// SelfDB maps a handful of friendly names to Postgres types and passes anything else
/// through as raw SQL. The emulator never puts the client's type text into SQL: it keeps
/// the text for `table_schema` and stores values by kind.
enum ColumnKind: String, Sendable, Codable {
    case text
    case varchar
    case integer
    case bigint
    case decimal
    case float
    case boolean
    case date
    case timestamp
    case json
    case uuid
    /// A raw type the emulator does not model; values are stored as given.
    case other

    /// The kind of a client-supplied type, or nil if the text could not be a SQL type
    /// at all (which also keeps injection attempts out).
    static func parse(_ type: String) -> (kind: ColumnKind, length: Int?)? {
        let text = type.trimmingSpaces.uppercased()
        guard isSafeTypeText(text) else { return nil }
        var base = text
        var arguments: [Int] = []
        if let open = text.firstIndex(of: "("), let close = text.lastIndex(of: ")"), open < close {
            base = String(text[..<open]).trimmingSpaces
            arguments = text[text.index(after: open)..<close].split(separator: ",").compactMap { Int($0.trimmingSpaces) }
        }
        if base.hasSuffix("[]") {
            return (.json, nil)
        }
        switch base {
        case "TEXT", "CITEXT": return (.text, nil)
        case "VARCHAR", "STRING", "CHARACTER VARYING", "CHAR", "CHARACTER":
            return (.varchar, arguments.first ?? (base.hasPrefix("CHAR") && base != "CHARACTER VARYING" ? 1 : 255))
        case "INTEGER", "INT", "INT4", "SMALLINT", "INT2", "SERIAL", "SMALLSERIAL": return (.integer, nil)
        case "BIGINT", "INT8", "BIGSERIAL": return (.bigint, nil)
        case "DECIMAL", "NUMERIC", "MONEY": return (.decimal, nil)
        case "FLOAT", "FLOAT4", "FLOAT8", "REAL", "DOUBLE PRECISION", "DOUBLE": return (.float, nil)
        case "BOOLEAN", "BOOL": return (.boolean, nil)
        case "DATE": return (.date, nil)
        case "TIMESTAMP", "DATETIME", "TIMESTAMPTZ", "TIMESTAMP WITH TIME ZONE", "TIMESTAMP WITHOUT TIME ZONE":
            return (.timestamp, nil)
        case "JSON", "JSONB": return (.json, nil)
        case "UUID": return (.uuid, nil)
        default: return (.other, nil)
        }
    }

    /// The kind of a type Postgres knows, or nil: SelfDB passes unknown type names through
    /// to SQL, where they fail, so the emulator refuses them up front.
    static func known(_ type: String) -> (kind: ColumnKind, length: Int?)? {
        guard let parsed = parse(type), parsed.kind != .other else { return nil }
        return parsed
    }

    /// Letters, digits, `_`, spaces, and one trailing `(n[,m])` and/or `[]`.
    private static func isSafeTypeText(_ text: String) -> Bool {
        guard let first = text.unicodeScalars.first, first >= "A" && first <= "Z", text.count <= 64 else { return false }
        var inParens = false
        var closed = false
        for scalar in text.unicodeScalars {
            switch scalar {
            case "A"..."Z", "_":
                if inParens || closed { return false }
            case "0"..."9":
                if closed { return false }
            case " ":
                continue
            case "(":
                if inParens || closed { return false }
                inParens = true
            case ",":
                if !inParens { return false }
            case ")":
                if !inParens { return false }
                inParens = false
                closed = true
            case "[", "]":
                if inParens { return false }
            default:
                return false
            }
        }
        return !inParens
    }

    /// The SQLite declared type: decides affinity only.
    var storageType: String {
        switch self {
        case .text, .varchar, .date, .timestamp, .json, .uuid: "TEXT"
        case .integer, .bigint, .boolean: "INTEGER"
        case .decimal, .float: "REAL"
        case .other: "BLOB"
        }
    }

    /// Whether `search` looks in this column (SelfDB searches text-like columns only).
    var isSearchable: Bool {
        self == .text || self == .varchar
    }

    /// The Postgres type name used in error messages.
    var postgresName: String {
        switch self {
        case .text: "text"
        case .varchar: "character varying"
        case .integer: "integer"
        case .bigint: "bigint"
        case .decimal: "numeric"
        case .float: "double precision"
        case .boolean: "boolean"
        case .date: "date"
        case .timestamp: "timestamp with time zone"
        case .json: "jsonb"
        case .uuid: "uuid"
        case .other: "unknown"
        }
    }
}

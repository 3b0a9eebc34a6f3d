import Foundation
import SelfDBSpec

/// SelfDB's column types in the spec language. SelfDB stores the type it was given: one of its
/// own names (the spec language's, `ColumnType`), or raw SQL it passed through to PostgreSQL
/// (`TIMESTAMPTZ`, `VARCHAR(80)`, `numeric(10,2)`, `text[]`…), which maps to the nearest type
/// with a note saying so, never dropped.
enum ColumnTypeMapping {
    /// The spec type for `serverType`, and a note when it is not the server's own.
    static func columnType(for serverType: String) -> (type: ColumnType, note: String?) {
        let trimmed = serverType.trimmingCharacters(in: .whitespaces)
        if let exact = ColumnType(rawValue: trimmed.lowercased()) { return (exact, nil) }
        let nearest = nearestType(trimmed.lowercased())
        return (nearest, "server type '\(trimmed)': written as '\(nearest.rawValue)', the nearest the spec language has")
    }

    private static func nearestType(_ sql: String) -> ColumnType {
        if sql.hasSuffix("[]") || sql.hasPrefix("_") { return .jsonb }
        let base = sql.split(separator: "(").first.map(String.init)?.trimmingCharacters(in: .whitespaces) ?? sql
        switch base {
        case "character varying", "varchar", "character", "char", "bpchar", "nvarchar": return .varchar
        case "citext", "name", "time", "timetz", "time with time zone", "time without time zone", "interval", "inet", "cidr",
            "macaddr", "bytea", "xml", "money", "tsvector":
            return .text
        case "smallint", "int2", "int4", "serial", "smallserial", "serial4": return .integer
        case "int8", "bigserial", "serial8": return .bigint
        case "numeric": return .decimal
        case "real", "float4", "float8", "double precision", "double": return .float
        case "timestamptz", "timestamp with time zone", "timestamp without time zone": return .timestamp
        default:
            if base.contains("timestamp") { return .timestamp }
            if base.contains("int") { return .integer }
            if base.contains("char") || base.contains("text") { return .text }
            if base.contains("json") { return .jsonb }
            if base.contains("bool") { return .boolean }
            return .text
        }
    }

    /// Names SelfDB treats as one type (`varchar` and `string` are both `VARCHAR(255)`): a
    /// spec that says `int` where the server says `integer` has not drifted.
    static func sameType(_ lhs: ColumnType, _ rhs: ColumnType) -> Bool {
        group(lhs) == group(rhs)
    }

    private static func group(_ type: ColumnType) -> ColumnType {
        switch type {
        case .string: .varchar
        case .int: .integer
        case .bool: .boolean
        case .datetime: .timestamp
        case .json: .jsonb
        default: type
        }
    }
}

import EmulatorSupport
import Foundation
import GRDB

/// Converts row values between JSON and SQLite by column kind, with Postgres-like
/// errors for values the real server would reject.
enum ValueCoding {
    struct Rejected: Error {
        var message: String
    }

    private static func invalid(_ kind: ColumnKind, _ value: JSONValue) -> Rejected {
        let shown = value.stringValue ?? JSONWriter.string(value)
        return Rejected(message: "invalid input syntax for type \(kind.postgresName): \"\(shown)\"")
    }

    /// The database value for a JSON value written to `column` of `table`.
    static func encode(_ value: JSONValue, for column: ColumnDefinition, table: String) throws(Rejected) -> DatabaseValue {
        if value.isNull {
            guard column.nullable else {
                throw Rejected(
                    message: "null value in column \"\(column.name)\" of relation \"\(table)\" violates not-null constraint"
                )
            }
            return .null
        }
        switch column.kind {
        case .text, .varchar:
            let text: String
            switch value {
            case .string(let string): text = string
            case .int(let number): text = String(number)
            case .double(let number): text = JSONWriter.string(.double(number))
            case .bool(let flag): text = flag ? "true" : "false"
            default: throw Rejected(message: "cannot adapt type '\(value.pythonTypeName)' for column \"\(column.name)\"")
            }
            if column.kind == .varchar, let length = column.length, text.count > length {
                throw Rejected(message: "value too long for type character varying(\(length))")
            }
            return text.databaseValue
        case .integer, .bigint:
            let number: Int64
            switch value {
            case .int(let integer): number = integer
            case .double(let double) where double.isFinite && abs(double) < 9.2e18: number = Int64(double.rounded())
            case .string(let string):
                guard let parsed = Int64(string.trimmingSpaces) else { throw invalid(column.kind, value) }
                number = parsed
            default:
                throw Rejected(
                    message: "column \"\(column.name)\" is of type \(column.kind.postgresName) but expression is of type \(value.pythonTypeName == "bool" ? "boolean" : "jsonb")"
                )
            }
            if column.kind == .integer, number < Int64(Int32.min) || number > Int64(Int32.max) {
                throw Rejected(message: "integer out of range")
            }
            return number.databaseValue
        case .decimal, .float:
            switch value {
            case .int(let integer): return Double(integer).databaseValue
            case .double(let double): return double.databaseValue
            case .string(let string):
                guard let parsed = Double(string.trimmingSpaces), parsed.isFinite else { throw invalid(column.kind, value) }
                return parsed.databaseValue
            default: throw invalid(column.kind, value)
            }
        case .boolean:
            switch value {
            case .bool(let flag): return (flag ? 1 : 0 as Int64).databaseValue
            case .string(let string):
                switch string.trimmingSpaces.lowercased() {
                case "true", "t", "yes", "y", "on", "1": return (1 as Int64).databaseValue
                case "false", "f", "no", "n", "off", "0": return (0 as Int64).databaseValue
                default: throw invalid(column.kind, value)
                }
            default:
                throw Rejected(message: "column \"\(column.name)\" is of type boolean but expression is of type integer")
            }
        case .date:
            guard let text = value.stringValue, let date = TimestampText.normalizeDate(text) else {
                throw invalid(column.kind, value)
            }
            return date.databaseValue
        case .timestamp:
            guard let text = value.stringValue, let timestamp = TimestampText.normalizeTimestamp(text) else {
                throw invalid(column.kind, value)
            }
            return timestamp.databaseValue
        case .json:
            return JSONWriter.string(value).databaseValue
        case .uuid:
            guard let text = value.stringValue, let id = UUIDText.normalized(text.trimmingSpaces) else {
                throw invalid(column.kind, value)
            }
            return id.databaseValue
        case .other:
            switch value {
            case .string(let string): return string.databaseValue
            case .int(let integer): return integer.databaseValue
            case .double(let double): return double.databaseValue
            case .bool(let flag): return (flag ? 1 : 0 as Int64).databaseValue
            default: return JSONWriter.string(value).databaseValue
            }
        }
    }

    /// The JSON value of a stored value of `kind`.
    static func decode(_ value: DatabaseValue, kind: ColumnKind?) -> JSONValue {
        switch value.storage {
        case .null:
            return .null
        case .int64(let integer):
            switch kind {
            case .boolean: return .bool(integer != 0)
            case .decimal, .float: return .double(Double(integer))
            default: return .int(integer)
            }
        case .double(let double):
            if kind == .integer || kind == .bigint, double == double.rounded(), abs(double) < 9.2e18 {
                return .int(Int64(double))
            }
            return .double(double)
        case .string(let text):
            if kind == .json, let parsed = try? JSONParser.parse(text) {
                return parsed
            }
            return .string(text)
        case .blob(let data):
            return .string(data.base64EncodedString())
        }
    }

    /// A stored value carried over to a column of another kind (table rebuilds), as a
    /// Postgres `ALTER COLUMN ... TYPE` would cast it.
    static func convert(_ value: DatabaseValue, from old: ColumnDefinition, to new: ColumnDefinition, table: String)
        throws(Rejected) -> DatabaseValue
    {
        let json = decode(value, kind: old.kind)
        if case .null = json { return try encode(.null, for: new, table: table) }
        // Postgres casts through text when the types differ.
        if old.kind != new.kind, new.kind != .text, new.kind != .varchar, new.kind != .json, new.kind != .other {
            let text: JSONValue =
                switch json {
                case .string: json
                case .bool(let flag): .string(flag ? "true" : "false")
                default: .string(JSONWriter.string(json))
                }
            if new.kind == .boolean, case .int(let integer) = json {
                return try encode(.bool(integer != 0), for: new, table: table)
            }
            if new.kind == .integer || new.kind == .bigint || new.kind == .decimal || new.kind == .float,
                case .int = json
            {
                return try encode(json, for: new, table: table)
            }
            return try encode(text, for: new, table: table)
        }
        return try encode(json, for: new, table: table)
    }
}

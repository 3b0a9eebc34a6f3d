import Foundation
import GRDB
import SelfDBRuntime

/// Local values ⇄ the JSON a Synchro server speaks, by the column's logical type: booleans
/// are JSON booleans on the wire and 0/1 locally, bytes base64 on the wire and BLOBs
/// locally, JSON columns JSON on the wire and text locally.
enum ValueConversion {
    /// The JSON of a stored value, for a push.
    static func json(_ value: DatabaseValue, as type: LogicalType) -> JSONValue {
        switch (value.storage, type) {
        case (.null, _): return .null
        case (.int64(let number), .boolean): return .bool(number != 0)
        case (.string(let text), .boolean): return .bool(["1", "true", "t", "yes"].contains(text.lowercased()))
        case (.int64(let number), .float): return .number(Double(number))
        case (.int64(let number), _): return .integer(number)
        case (.double(let number), .int), (.double(let number), .int64):
            return number.rounded() == number && abs(number) < 9.2e18 ? .integer(Int64(number)) : .number(number)
        case (.double(let number), _): return .number(number)
        case (.string(let text), .json):
            return (try? JSONDecoder().decode(JSONValue.self, from: Data(text.utf8))) ?? .string(text)
        case (.string(let text), _): return .string(text)
        case (.blob(let data), .json):
            return (try? JSONDecoder().decode(JSONValue.self, from: data)) ?? .string(data.base64EncodedString())
        case (.blob(let data), _): return .string(data.base64EncodedString())
        }
    }

    /// The stored value of a pulled JSON value.
    static func databaseValue(_ value: JSONValue, as type: LogicalType) -> DatabaseValue {
        switch (value, type) {
        case (.null, _): return .null
        case (.bool(let flag), _) where type != .json: return (flag ? 1 : 0).databaseValue
        case (.string(let text), .boolean):
            return (["1", "true", "t", "yes"].contains(text.lowercased()) ? 1 : 0).databaseValue
        case (.string(let text), .bytes): return Data(base64Encoded: text)?.databaseValue ?? text.databaseValue
        case (.integer(let number), .float): return Double(number).databaseValue
        case (.integer(let number), _) where type != .json: return number.databaseValue
        case (.number(let number), _) where type != .json: return number.databaseValue
        case (.string(let text), _) where type != .json: return text.databaseValue
        default:
            // JSON columns, and arrays or objects wherever they come: stored as JSON text.
            return jsonText(value).databaseValue
        }
    }

    static func jsonText(_ value: JSONValue) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return (try? encoder.encode(value)).map { String(decoding: $0, as: UTF8.self) } ?? "null"
    }
}

/// `synchro_time(text)`: a timestamp as seconds since 1970 with sub-microsecond precision,
/// or NULL. SQLite's own date functions keep milliseconds only, and text comparison fails
/// on RFC 3339's variable fractional digits; pulls compare the server's `updated_at` with
/// the local one through this.
enum TimestampFunction {
    static let function = DatabaseFunction("synchro_time", argumentCount: 1, pure: true) { values in
        guard let text = String.fromDatabaseValue(values[0]), let date = TimestampParser.parse(text) else { return nil }
        return date.timeIntervalSince1970
    }
}

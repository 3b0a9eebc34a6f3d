import EmulatorSupport
import GRDB

/// Converts column values between the wire (JSON) and storage (SQLite), by logical type.
enum SyncValueCoding {
    /// Why a pushed value does not fit its column (`invalid_data`).
    struct Mismatch: Error {
        var message: String
    }

    /// What to store for a pushed `value`. Booleans may also come as 0/1 and integers as
    /// floats without a fraction, because clients that keep rows in SQLite send them so.
    static func storable(_ value: JSONValue, for column: SyncColumn) throws(Mismatch) -> DatabaseValue {
        if value.isNull {
            guard column.nullable else { throw Mismatch(message: "column '\(column.name)' cannot be null") }
            return .null
        }
        switch (column.logicalType, value) {
        case (.string, .string(let text)):
            return text.databaseValue
        case (.boolean, .bool(let flag)):
            return flag.databaseValue
        case (.boolean, .int(let number)) where number == 0 || number == 1:
            return (number == 1).databaseValue
        case (.int, .int(let number)), (.int64, .int(let number)):
            return number.databaseValue
        case (.int, .double(let number)), (.int64, .double(let number)):
            guard number == number.rounded(), let exact = Int64(exactly: number) else { break }
            return exact.databaseValue
        case (.float, .int(let number)):
            return Double(number).databaseValue
        case (.float, .double(let number)):
            return number.databaseValue
        case (.datetime, .string(let text)):
            guard let instant = SyncTimestamp(parsing: text) else { break }
            return instant.text.databaseValue
        case (.date, .string(let text)):
            guard let date = TimestampText.normalizeDate(text) else { break }
            return date.databaseValue
        case (.json, _):
            return JSONWriter.string(value).databaseValue
        default:
            break
        }
        throw Mismatch(message: "column '\(column.name)' expects \(column.logicalType.rawValue), got \(JSONWriter.string(value).prefix(40))")
    }

    /// The JSON a stored value is served as.
    static func json(_ value: DatabaseValue, for column: SyncColumn) -> JSONValue {
        switch (column.logicalType, value.storage) {
        case (_, .null):
            return .null
        case (.boolean, .int64(let number)):
            return .bool(number != 0)
        case (.int, .int64(let number)), (.int64, .int64(let number)):
            return .int(number)
        case (.float, .double(let number)):
            return .double(number)
        case (.float, .int64(let number)):
            return .double(Double(number))
        case (.json, .string(let text)):
            return (try? JSONParser.parse(text)) ?? .string(text)
        case (_, .string(let text)):
            return .string(text)
        case (_, .int64(let number)):
            return .int(number)
        case (_, .double(let number)):
            return .double(number)
        case (_, .blob(let data)):
            return .string(data.base64EncodedString())
        }
    }
}

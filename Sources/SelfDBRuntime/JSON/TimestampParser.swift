import Foundation

/// Lenient ISO 8601 / RFC 3339 timestamps, parsed by hand: `ISO8601DateFormatter` accepts
/// either no fraction or exactly the configured form, while servers send 0–9 fraction digits,
/// `Z`, `+00:00`, or no zone at all (read as UTC).
public enum TimestampParser {
    /// Parses `2024-05-01`, `2024-05-01T10:00:00`, `…:00.1Z`, `…:00.123456+02:00`, and a space
    /// instead of `T`. Returns `nil` for anything else.
    public static func parse(_ text: String) -> Date? {
        let scalars = Array(text.utf8)
        var index = 0
        func number(_ digits: Int) -> Int? {
            guard index + digits <= scalars.count else { return nil }
            var value = 0
            for offset in 0..<digits {
                let byte = scalars[index + offset]
                guard byte >= 48, byte <= 57 else { return nil }
                value = value * 10 + Int(byte - 48)
            }
            index += digits
            return value
        }
        func expect(_ byte: UInt8) -> Bool {
            guard index < scalars.count, scalars[index] == byte else { return false }
            index += 1
            return true
        }
        guard let year = number(4), expect(45), let month = number(2), expect(45), let day = number(2) else { return nil }
        var hour = 0
        var minute = 0
        var second = 0
        var fraction = 0.0
        var offsetSeconds = 0
        if index < scalars.count {
            guard expect(84) || expect(116) || expect(32) else { return nil }
            guard let hours = number(2), expect(58), let minutes = number(2) else { return nil }
            hour = hours
            minute = minutes
            if expect(58) {
                guard let seconds = number(2) else { return nil }
                second = seconds
                if expect(46) || expect(44) {
                    var scale = 0.1
                    var digits = 0
                    while index < scalars.count, scalars[index] >= 48, scalars[index] <= 57 {
                        fraction += Double(scalars[index] - 48) * scale
                        scale /= 10
                        index += 1
                        digits += 1
                    }
                    guard digits > 0 else { return nil }
                }
            }
            if expect(90) || expect(122) {
                // UTC
            } else if index < scalars.count {
                let sign: Int
                if expect(43) { sign = 1 } else if expect(45) { sign = -1 } else { return nil }
                guard let hours = number(2) else { return nil }
                _ = expect(58)
                let minutes = number(2) ?? 0
                offsetSeconds = sign * (hours * 3600 + minutes * 60)
            }
        }
        guard index == scalars.count else { return nil }
        guard (1...12).contains(month), (1...daysIn(month: month, year: year)).contains(day),
            hour <= 24, minute < 60, second <= 60
        else { return nil }
        // Plain arithmetic rather than Calendar: this runs for every date of every decoded
        // row, and a Calendar per call costs more than the rest of the decoding.
        let days = daysSinceEpoch(year: year, month: month, day: day)
        let seconds = Double(days * 86_400 + hour * 3_600 + minute * 60 + second - offsetSeconds)
        return Date(timeIntervalSince1970: seconds + fraction)
    }

    /// `2024-05-01T10:00:00.123Z`: UTC, milliseconds (rounded).
    public static func format(_ date: Date) -> String {
        let milliseconds = Int64((date.timeIntervalSince1970 * 1_000).rounded())
        let (days, dayMilliseconds) = floorDivision(milliseconds, 86_400_000)
        let (year, month, day) = civilDate(daysSinceEpoch: days)
        let secondsOfDay = Int(dayMilliseconds / 1_000)
        return pad(year, 4) + "-" + pad(month, 2) + "-" + pad(day, 2) + "T"
            + pad(secondsOfDay / 3_600, 2) + ":" + pad(secondsOfDay / 60 % 60, 2) + ":" + pad(secondsOfDay % 60, 2)
            + "." + pad(Int(dayMilliseconds % 1_000), 3) + "Z"
    }

    // MARK: - Calendar arithmetic (proleptic Gregorian, UTC)

    private static func isLeap(_ year: Int) -> Bool {
        year % 4 == 0 && (year % 100 != 0 || year % 400 == 0)
    }

    private static func daysIn(month: Int, year: Int) -> Int {
        switch month {
        case 2: isLeap(year) ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }

    /// Days from 1970-01-01 (H. Hinnant's days_from_civil).
    private static func daysSinceEpoch(year: Int, month: Int, day: Int) -> Int {
        let shiftedYear = month <= 2 ? year - 1 : year
        let era = (shiftedYear >= 0 ? shiftedYear : shiftedYear - 399) / 400
        let yearOfEra = shiftedYear - era * 400
        let dayOfYear = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    /// The inverse (civil_from_days).
    private static func civilDate(daysSinceEpoch days: Int64) -> (year: Int, month: Int, day: Int) {
        let shifted = Int(days) + 719_468
        let era = (shifted >= 0 ? shifted : shifted - 146_096) / 146_097
        let dayOfEra = shifted - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1_460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let monthIndex = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * monthIndex + 2) / 5 + 1
        let month = monthIndex < 10 ? monthIndex + 3 : monthIndex - 9
        return (yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }

    private static func floorDivision(_ value: Int64, _ divisor: Int64) -> (quotient: Int64, remainder: Int64) {
        let remainder = ((value % divisor) + divisor) % divisor
        return ((value - remainder) / divisor, remainder)
    }

    private static func pad(_ value: Int, _ width: Int) -> String {
        let digits = String(value)
        return digits.count >= width ? digits : String(repeating: "0", count: width - digits.count) + digits
    }
}

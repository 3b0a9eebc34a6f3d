import Foundation

/// Parses the timestamp and date literals Postgres accepts for `timestamptz`/`date`
/// columns and prints them as Python's `isoformat()` does for a UTC `datetime`.
package enum TimestampText {
    /// `YYYY-MM-DD[T ]HH:MM[:SS[.ffffff]][Z|±HH[:MM]]`, or a bare date (midnight UTC).
    package static func normalizeTimestamp(_ text: String) -> String? {
        let scalars = Array(text.trimmingSpaces.utf8)
        var index = 0
        func number(_ digits: Int) -> Int? {
            guard index + digits <= scalars.count else { return nil }
            var value = 0
            for offset in 0..<digits {
                let byte = scalars[index + offset]
                guard byte >= 48 && byte <= 57 else { return nil }
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
        guard let year = number(4), expect(UInt8(ascii: "-")), let month = number(2), expect(UInt8(ascii: "-")),
            let day = number(2), (1...12).contains(month), (1...31).contains(day)
        else { return nil }
        var hour = 0
        var minute = 0
        var second = 0
        var micros = 0
        var offsetSeconds = 0
        if index < scalars.count {
            guard expect(UInt8(ascii: "T")) || expect(UInt8(ascii: " ")) || expect(UInt8(ascii: "t")) else { return nil }
            guard let h = number(2), expect(UInt8(ascii: ":")), let m = number(2), h < 24, m < 60 else { return nil }
            hour = h
            minute = m
            if expect(UInt8(ascii: ":")) {
                guard let s = number(2), s < 61 else { return nil }
                second = s
                if expect(UInt8(ascii: ".")) {
                    var digits = 0
                    var fraction = 0
                    while index < scalars.count, scalars[index] >= 48, scalars[index] <= 57 {
                        if digits < 6 {
                            fraction = fraction * 10 + Int(scalars[index] - 48)
                        }
                        digits += 1
                        index += 1
                    }
                    guard digits > 0 else { return nil }
                    for _ in digits..<max(digits, 6) { fraction *= 10 }
                    micros = fraction
                }
            }
            if index < scalars.count {
                if expect(UInt8(ascii: "Z")) || expect(UInt8(ascii: "z")) {
                    offsetSeconds = 0
                } else {
                    let sign: Int
                    if expect(UInt8(ascii: "+")) {
                        sign = 1
                    } else if expect(UInt8(ascii: "-")) {
                        sign = -1
                    } else {
                        return nil
                    }
                    guard let offsetHours = number(2) else { return nil }
                    var offsetMinutes = 0
                    if expect(UInt8(ascii: ":")) {
                        guard let value = number(2) else { return nil }
                        offsetMinutes = value
                    } else if let value = number(2) {
                        offsetMinutes = value
                    }
                    offsetSeconds = sign * (offsetHours * 3600 + offsetMinutes * 60)
                }
            }
            guard index == scalars.count else { return nil }
        }
        var components = DateComponents()
        components.calendar = Calendar(identifier: .gregorian)
        components.timeZone = TimeZone(secondsFromGMT: 0)
        components.year = year
        components.month = month
        components.day = day
        components.hour = hour
        components.minute = minute
        components.second = second
        guard let date = components.date else { return nil }
        let utc = date.addingTimeInterval(TimeInterval(-offsetSeconds))
        var formatted = Timestamp.string(from: utc)  // ...ss.ffffffZ
        formatted.removeLast()  // Z
        formatted.removeLast(7)  // .ffffff
        if micros > 0 {
            formatted += "." + String(format: "%06d", micros)
        }
        return formatted + "+00:00"
    }

    /// `YYYY-MM-DD` (a timestamp is cut to its date, as Postgres does).
    package static func normalizeDate(_ text: String) -> String? {
        let trimmed = text.trimmingSpaces
        guard trimmed.utf8.count >= 10, let timestamp = normalizeTimestamp(String(trimmed.prefix(10))) else { return nil }
        if trimmed.utf8.count > 10, normalizeTimestamp(trimmed) == nil { return nil }
        return String(timestamp.prefix(10))
    }
}

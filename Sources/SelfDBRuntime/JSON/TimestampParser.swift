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
        var components = DateComponents()
        components.year = year
        components.month = month
        components.day = day
        components.hour = 0
        components.minute = 0
        components.second = 0
        var fraction = 0.0
        var offsetSeconds = 0
        if index < scalars.count {
            guard expect(84) || expect(116) || expect(32) else { return nil }
            guard let hour = number(2), expect(58), let minute = number(2) else { return nil }
            components.hour = hour
            components.minute = minute
            if expect(58) {
                guard let second = number(2) else { return nil }
                components.second = second
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
        guard (1...12).contains(month), (1...31).contains(day),
              let hour = components.hour, hour <= 24, let minute = components.minute, minute < 60,
              let second = components.second, second <= 60 else { return nil }
        var calendar = Calendar(identifier: .gregorian)
        guard let utc = TimeZone(secondsFromGMT: 0) else { return nil }
        calendar.timeZone = utc
        guard let date = calendar.date(from: components) else { return nil }
        return date.addingTimeInterval(fraction - Double(offsetSeconds))
    }

    /// `2024-05-01T10:00:00.123Z`.
    public static func format(_ date: Date) -> String {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return formatter.string(from: date)
    }
}

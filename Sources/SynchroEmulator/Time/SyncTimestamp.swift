import EmulatorSupport
import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Synchro timestamps as whole milliseconds since 1970.
///
/// The server keeps and prints millisecond precision because the client sends milliseconds:
/// a `base_updated_at` the client read from us must compare *equal* to what we stored, which
/// it would not if we kept microseconds the client then truncated.
struct SyncTimestamp: Sendable, Hashable, Comparable {
    var milliseconds: Int64

    static func < (lhs: SyncTimestamp, rhs: SyncTimestamp) -> Bool { lhs.milliseconds < rhs.milliseconds }

    static func now() -> SyncTimestamp {
        SyncTimestamp(milliseconds: Int64((Date().timeIntervalSince1970 * 1000).rounded(.down)))
    }

    func adding(milliseconds delta: Int64) -> SyncTimestamp {
        SyncTimestamp(milliseconds: milliseconds + delta)
    }

    /// `YYYY-MM-DDTHH:MM:SS.mmmZ`; fixed width, so the stored text sorts chronologically.
    var text: String {
        var seconds = time_t(milliseconds.floorDivided(by: 1000))
        let millis = Int(milliseconds - Int64(seconds) * 1000)
        var parts = tm()
        gmtime_r(&seconds, &parts)
        let year = Int(parts.tm_year) + 1900
        // Written digit by digit: `String(format:)` was a twentieth of a push's time (every
        // mutation formats several timestamps).
        if (0...9999).contains(year) {
            var bytes = Array("0000-00-00T00:00:00.000Z".utf8)
            func put(_ value: Int, width: Int, at offset: Int) {
                var rest = value
                for index in stride(from: offset + width - 1, through: offset, by: -1) {
                    bytes[index] = UInt8(ascii: "0") + UInt8(rest % 10)
                    rest /= 10
                }
            }
            put(year, width: 4, at: 0)
            put(Int(parts.tm_mon) + 1, width: 2, at: 5)
            put(Int(parts.tm_mday), width: 2, at: 8)
            put(Int(parts.tm_hour), width: 2, at: 11)
            put(Int(parts.tm_min), width: 2, at: 14)
            put(Int(parts.tm_sec), width: 2, at: 17)
            put(millis, width: 3, at: 20)
            return String(decoding: bytes, as: UTF8.self)
        }
        return String(
            format: "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ",
            Int(parts.tm_year) + 1900,
            Int(parts.tm_mon) + 1,
            Int(parts.tm_mday),
            Int(parts.tm_hour),
            Int(parts.tm_min),
            Int(parts.tm_sec),
            millis
        )
    }

    var json: JSONValue { .string(text) }

    /// RFC 3339: `YYYY-MM-DDTHH:MM:SS[.fraction](Z|±HH:MM)`, any number of fraction digits
    /// (cut to milliseconds). A space instead of `T` is accepted, as SQL prints it.
    init?(parsing text: String) {
        let bytes = Array(text.utf8)
        var index = 0
        func number(_ digits: Int) -> Int? {
            guard index + digits <= bytes.count else { return nil }
            var value = 0
            for offset in 0..<digits {
                let byte = bytes[index + offset]
                guard (48...57).contains(byte) else { return nil }
                value = value * 10 + Int(byte - 48)
            }
            index += digits
            return value
        }
        func expect(_ characters: String) -> Bool {
            guard index < bytes.count, characters.utf8.contains(bytes[index]) else { return false }
            index += 1
            return true
        }
        guard let year = number(4), expect("-"), let month = number(2), expect("-"), let day = number(2),
            (1...12).contains(month), (1...31).contains(day), expect("Tt "),
            let hour = number(2), expect(":"), let minute = number(2), expect(":"), let second = number(2),
            hour < 24, minute < 60, second < 61
        else { return nil }
        var millis = 0
        if expect(".") {
            var digits = 0
            while index < bytes.count, (48...57).contains(bytes[index]) {
                if digits < 3 { millis = millis * 10 + Int(bytes[index] - 48) }
                digits += 1
                index += 1
            }
            guard digits > 0 else { return nil }
            for _ in digits..<max(digits, 3) { millis *= 10 }
        }
        var offsetSeconds = 0
        if expect("Zz") {
            offsetSeconds = 0
        } else {
            let sign: Int
            if expect("+") { sign = 1 } else if expect("-") { sign = -1 } else { return nil }
            guard let offsetHours = number(2), expect(":"), let offsetMinutes = number(2), offsetHours < 24, offsetMinutes < 60
            else { return nil }
            offsetSeconds = sign * (offsetHours * 3600 + offsetMinutes * 60)
        }
        guard index == bytes.count, let days = Self.daysSinceEpoch(year: year, month: month, day: day) else { return nil }
        let seconds = Int64(days) * 86_400 + Int64(hour * 3600 + minute * 60 + second - offsetSeconds)
        milliseconds = seconds * 1000 + Int64(millis)
    }

    init(milliseconds: Int64) {
        self.milliseconds = milliseconds
    }

    /// Days from 1970-01-01 to a proleptic Gregorian date (Howard Hinnant's algorithm);
    /// nil for a day the month does not have.
    fileprivate static func daysSinceEpoch(year: Int, month: Int, day: Int) -> Int? {
        let leap = year % 4 == 0 && (year % 100 != 0 || year % 400 == 0)
        let monthLengths = [31, leap ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31]
        guard day <= monthLengths[month - 1] else { return nil }
        let shiftedYear = month <= 2 ? year - 1 : year
        let era = (shiftedYear >= 0 ? shiftedYear : shiftedYear - 399) / 400
        let yearOfEra = shiftedYear - era * 400
        let dayOfYear = (153 * (month > 2 ? month - 3 : month + 9) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }
}

extension Int64 {
    /// Division rounding towards negative infinity (for instants before 1970).
    fileprivate func floorDivided(by divisor: Int64) -> Int64 {
        let quotient = self / divisor
        return (self % divisor != 0 && (self < 0) != (divisor < 0)) ? quotient - 1 : quotient
    }
}

extension SyncTimestamp {
    private static let canonicalSeparators: [(offset: Int, byte: UInt8)] = [
        (4, UInt8(ascii: "-")), (7, UInt8(ascii: "-")), (10, UInt8(ascii: "T")), (13, UInt8(ascii: ":")),
        (16, UInt8(ascii: ":")), (19, UInt8(ascii: ".")), (23, UInt8(ascii: "Z")),
    ]

    /// Whether `text` is already what parsing and printing it gives (``text``): the fixed
    /// `YYYY-MM-DDTHH:MM:SS.mmmZ` form of a real instant. A page of rows serves the stored text
    /// as it is when this holds, and parses and prints it otherwise.
    static func isCanonical(_ text: String) -> Bool {
        var text = text
        return text.withUTF8 { bytes in
            guard bytes.count == 24 else { return false }
            func digits(_ offset: Int, _ count: Int) -> Int? {
                var value = 0
                for index in offset..<offset + count {
                    let byte = bytes[index]
                    guard (48...57).contains(byte) else { return nil }
                    value = value * 10 + Int(byte - 48)
                }
                return value
            }
            guard canonicalSeparators.allSatisfy({ bytes[$0.offset] == $0.byte }),
                let year = digits(0, 4), let month = digits(5, 2), let day = digits(8, 2), let hour = digits(11, 2),
                let minute = digits(14, 2), let second = digits(17, 2), digits(20, 3) != nil,
                (1...12).contains(month), day >= 1, hour < 24, minute < 60, second < 60
            else { return false }
            return daysSinceEpoch(year: year, month: month, day: day) != nil
        }
    }
}

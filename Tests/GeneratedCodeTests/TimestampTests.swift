import Foundation
import SelfDBRuntime
import Testing

/// Dates are parsed and formatted by arithmetic (a Calendar or ISO8601DateFormatter per call
/// dominated decoding); these pin it to Foundation's answers.
@Suite struct TimestampTests {
    @Test func parsesTheFormsServersSend() throws {
        let base = try #require(TimestampParser.parse("2024-05-01T10:00:00Z"))
        #expect(base.timeIntervalSince1970 == 1_714_557_600)
        #expect(TimestampParser.parse("2024-05-01T10:00:00.5Z")?.timeIntervalSince1970 == 1_714_557_600.5)
        #expect(TimestampParser.parse("2024-05-01T12:00:00+02:00") == base)
        #expect(TimestampParser.parse("2024-05-01T07:30:00-0230") == base)
        #expect(TimestampParser.parse("2024-05-01 10:00:00") == base)
        #expect(TimestampParser.parse("2024-05-01")?.timeIntervalSince1970 == 1_714_521_600)
        #expect(abs((TimestampParser.parse("2024-05-01T10:00:00.123456789Z")?.timeIntervalSince1970 ?? 0) - 1_714_557_600.123456789) < 1e-6)
        #expect(TimestampParser.parse("2024-02-29T00:00:00Z") != nil)
        #expect(TimestampParser.parse("1969-12-31T23:59:59Z")?.timeIntervalSince1970 == -1)
        for bad in ["2023-02-29T00:00:00Z", "2024-13-01", "2024-04-31", "2024-05-01T10:00:00.Z", "yesterday", "2024-05-01T10:00:00Zjunk", ""] {
            #expect(TimestampParser.parse(bad) == nil, "\(bad)")
        }
    }

    @Test func formatsLikeFoundationAndRoundTrips() throws {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<2_000 {
            // Whole milliseconds from 1900 to 2200, where both agree exactly.
            let milliseconds = Int64.random(in: -2_208_988_800_000...7_258_118_400_000, using: &generator)
            let date = Date(timeIntervalSince1970: Double(milliseconds) / 1_000)
            let text = TimestampParser.format(date)
            #expect(text == formatter.string(from: date), "\(milliseconds)")
            #expect(TimestampParser.parse(text).map { Int64(($0.timeIntervalSince1970 * 1_000).rounded()) } == milliseconds)
        }
        #expect(TimestampParser.format(Date(timeIntervalSince1970: 0.9996)) == "1970-01-01T00:00:01.000Z")
    }
}

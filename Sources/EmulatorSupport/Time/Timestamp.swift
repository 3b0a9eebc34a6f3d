import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// ISO 8601 timestamps with microseconds and `Z`, as SelfDB's REST models print them.
/// Stored as text in the same format, which sorts chronologically.
package enum Timestamp {
    package static func string(from date: Date) -> String {
        let seconds = date.timeIntervalSince1970
        var whole = time_t(seconds.rounded(.down))
        var micros = Int(((seconds - Double(whole)) * 1_000_000).rounded())
        if micros >= 1_000_000 {
            whole += 1
            micros -= 1_000_000
        }
        var parts = tm()
        gmtime_r(&whole, &parts)
        return String(
            format: "%04d-%02d-%02dT%02d:%02d:%02d.%06dZ",
            Int(parts.tm_year) + 1900,
            Int(parts.tm_mon) + 1,
            Int(parts.tm_mday),
            Int(parts.tm_hour),
            Int(parts.tm_min),
            Int(parts.tm_sec),
            micros
        )
    }

    package static func now() -> String {
        string(from: Date())
    }

    /// The `+00:00` spelling Postgres-originated realtime payloads use.
    package static func realtime(_ stored: String) -> String {
        stored.hasSuffix("Z") ? String(stored.dropLast()) + "+00:00" : stored
    }
}

import Foundation

/// The wait before attempt `attempt + 1` of a failed cycle: the server's `Retry-After` when
/// it gave one, else `min(2^(n-1), 16)` seconds plus 0–50 % jitter, so that devices that
/// failed together do not retry together.
enum Backoff {
    static func delay(afterAttempt attempt: Int, retryAfter: TimeInterval?) -> TimeInterval {
        if let retryAfter { return max(0, retryAfter) }
        let base = min(pow(2, Double(max(0, attempt - 1))), 16)
        return base * (1 + Double.random(in: 0...0.5))
    }
}

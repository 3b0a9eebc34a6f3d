import Foundation

/// When and how long to wait before sending a request again.
///
/// A request that failed without reaching the server (``RequestDelivery/notSent``: refused,
/// unreachable, offline) is sent again whatever its method. Otherwise only idempotent requests
/// are retried (GET, PUT, DELETE, HEAD, and endpoints the spec marks `idempotent: true`): a POST
/// that may have reached the server is never sent twice, and its error says the outcome is
/// unknown (``SelfDBError/outcomeIsUnknown``).
public struct RetryPolicy: Sendable {
    /// Attempts in all, the first included (1 = never retry).
    public var maxAttempts: Int
    /// First backoff delay; doubled for each further attempt.
    public var baseDelay: TimeInterval
    /// Longest wait, whatever `Retry-After` asks for.
    public var maxDelay: TimeInterval
    /// Statuses that mean "try again later".
    public var retryableStatuses: Set<Int>

    /// Creates a policy.
    public init(maxAttempts: Int = 3, baseDelay: TimeInterval = 0.5, maxDelay: TimeInterval = 30, retryableStatuses: Set<Int> = [429, 503]) {
        self.maxAttempts = max(1, maxAttempts)
        self.baseDelay = baseDelay
        self.maxDelay = maxDelay
        self.retryableStatuses = retryableStatuses
    }

    /// Never retries.
    public static let none = RetryPolicy(maxAttempts: 1)

    /// The wait before attempt `attempt + 1`: the server's `Retry-After` when given, else
    /// exponential backoff with up to 50 % jitter so that clients do not retry in lockstep.
    package func delay(afterAttempt attempt: Int, retryAfter: TimeInterval?) -> TimeInterval {
        if let retryAfter { return min(max(0, retryAfter), maxDelay) }
        let backoff = baseDelay * pow(2, Double(max(0, attempt - 1)))
        return min(backoff * (1 + Double.random(in: 0...0.5)), maxDelay)
    }

    /// `Retry-After` as seconds or an HTTP date.
    static func parseRetryAfter(_ value: String?, now: Date = Date()) -> TimeInterval? {
        guard let value = value?.trimmingCharacters(in: .whitespaces), !value.isEmpty else { return nil }
        if let seconds = TimeInterval(value) { return seconds }
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss zzz"
        return formatter.date(from: value).map { max(0, $0.timeIntervalSince(now)) }
    }
}

/// The categories a spec's `errors:` section maps HTTP statuses to; the client turns each
/// into its typed error.
public enum APIErrorKind: String, Sendable, Hashable, CaseIterable {
    /// The request was malformed (usually 400).
    case badRequest
    /// No valid credentials (usually 401); the client refreshes the session once and retries.
    case unauthorized
    /// The credentials do not allow the call (usually 403).
    case forbidden
    /// What the call names does not exist (usually 404).
    case notFound
    /// The server cannot answer in an acceptable form (usually 406).
    case notAcceptable
    /// The call conflicts with the current state, e.g. a name already taken (usually 409).
    case conflict
    /// The body is too large (usually 413).
    case payloadTooLarge
    /// The body failed validation; the issues are in the error (usually 422).
    case validation
    /// The app is too old for the server (usually 426).
    case upgradeRequired
    /// Too many requests; idempotent calls are retried after `Retry-After` (usually 429).
    case rateLimited
    /// The server failed (usually 500).
    case server
    /// The server is temporarily unavailable; idempotent calls are retried (usually 503).
    case unavailable
}

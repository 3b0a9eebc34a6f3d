/// The categories a spec's `errors:` section maps HTTP statuses to; the client turns each
/// into its typed error.
public enum APIErrorKind: String, Sendable, Hashable, CaseIterable {
    case badRequest, unauthorized, forbidden, notFound, notAcceptable, conflict
    case payloadTooLarge, validation, upgradeRequired, rateLimited, server, unavailable
}

import Foundation

/// An HTTP method.
public enum HTTPMethod: String, Sendable, Hashable {
    /// `GET`: reads.
    case get = "GET"
    /// `POST`: creates or acts; retried only when the endpoint is marked idempotent.
    case post = "POST"
    /// `PUT`: replaces.
    case put = "PUT"
    /// `PATCH`: changes part of a resource.
    case patch = "PATCH"
    /// `DELETE`: removes.
    case delete = "DELETE"
    /// `HEAD`: a `GET` without the body.
    case head = "HEAD"

    /// Whether repeating the request cannot change the outcome (RFC 9110 §9.2.2).
    public var isIdempotent: Bool {
        switch self {
        case .get, .put, .delete, .head: true
        case .post, .patch: false
        }
    }
}

/// The credentials a request needs.
public enum RequestAuth: Sendable, Hashable {
    /// Nothing attached.
    case none
    /// The API key only.
    case apiKey
    /// The API key and the signed-in user's bearer token; fails before sending without one.
    case bearer
    /// The API key, and the bearer token when signed in.
    case optionalBearer
}

/// What a request does to the signed-in session.
public enum SessionEffect: Sendable, Hashable {
    /// The response carries a new token pair.
    case signIn
    /// The response rotates the token pair.
    case refresh
    /// The session ends.
    case signOut
}

/// A request body.
public enum RequestBody: Sendable, Hashable {
    /// No body.
    case none
    /// Encoded JSON.
    case json(Data)
    /// Raw bytes with their content type.
    case bytes(Data, contentType: String)
}

/// A request as generated code describes it: relative path, query, body and the credentials
/// it needs. The client turns it into a `URLRequest`.
public struct APIRequest: Sendable, Hashable {
    /// Method.
    public var method: HTTPMethod
    /// Path relative to the base URL, already percent-encoded (see `\(path:)` interpolation).
    public var path: String
    /// Query items in order; items whose value is `nil` are left out.
    public var query: [QueryItem]
    /// Body.
    public var body: RequestBody
    /// Credentials.
    public var auth: RequestAuth
    /// Effect on the session.
    public var session: SessionEffect?
    /// Whether the client may retry it after it may have reached the server.
    public var isIdempotent: Bool
    /// Extra headers.
    public var headers: [String: String]

    /// Creates a request; `idempotent` defaults to what the method implies.
    public init(
        method: HTTPMethod,
        path: String,
        auth: RequestAuth = .none,
        session: SessionEffect? = nil,
        idempotent: Bool? = nil,
        query: [QueryItem] = [],
        body: RequestBody = .none,
        headers: [String: String] = [:]
    ) {
        self.method = method
        self.path = path
        self.query = query
        self.body = body
        self.auth = auth
        self.session = session
        self.isIdempotent = idempotent ?? method.isIdempotent
        self.headers = headers
    }
}

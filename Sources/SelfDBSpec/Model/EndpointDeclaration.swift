/// An HTTP method an endpoint may use.
public enum HTTPMethodName: String, CaseIterable, Hashable, Sendable {
    case get = "GET"
    case post = "POST"
    case put = "PUT"
    case patch = "PATCH"
    case delete = "DELETE"
    case head = "HEAD"

    /// Whether repeating the request cannot change the outcome (RFC 9110 §9.2.2); only such
    /// requests are retried after they may have reached the server.
    public var isIdempotent: Bool {
        switch self {
        case .get, .put, .delete, .head: true
        case .post, .patch: false
        }
    }
}

/// The credentials an endpoint needs.
public enum AuthRequirement: String, CaseIterable, Hashable, Sendable {
    /// Nothing is attached.
    case none
    /// The client's API key only (no user token).
    case apiKey
    /// The API key and a signed-in user's bearer token; the call fails early without a session.
    case bearer
    /// The API key, and the bearer token when a user is signed in.
    case optionalBearer
}

/// What an endpoint does to the client's signed-in session.
public enum SessionEffect: String, CaseIterable, Hashable, Sendable {
    /// The response holds a new token pair to keep.
    case signIn
    /// The response rotates the token pair.
    case refresh
    /// The session ends whatever the response.
    case signOut
}

/// The part of an endpoint that also travels as a file (`stream:`): besides the function
/// taking or returning `Foundation.Data`, the generated code has a variant that reads the body
/// from a file, or writes the answer to one, as it goes, with progress. Memory then stays flat
/// whatever the size, which a photo or video needs and `Data` cannot give.
public enum StreamedPart: String, CaseIterable, Hashable, Sendable {
    /// The `Bytes` body: the variant takes `fileURL: URL` in its place.
    case body
    /// The `Bytes` answer: the variant takes `to destination: URL` and returns the size written.
    case returns
}

/// Where a parameter travels.
public enum ParameterLocation: String, CaseIterable, Hashable, Sendable {
    case path
    case query
    case body
}

/// An operation under `endpoints:`.
public struct EndpointDeclaration: Hashable, Sendable {
    /// The dotted name, split: `auth.users.create` → `["auth", "users", "create"]`.
    public var name: Located<String>
    /// HTTP method.
    public var method: Located<HTTPMethodName>
    /// Path template such as `/tables/{table_id}/data`.
    public var path: Located<String>
    /// Documentation.
    public var summary: String?
    /// Credentials.
    public var auth: AuthRequirement
    /// Parameters in declaration order (which is the Swift argument order).
    public var parameters: [ParameterDeclaration]
    /// The response body type; `nil` for none (204 or ignored).
    public var returns: Located<TypeReference>?
    /// Effect on the session.
    public var session: SessionEffect?
    /// Whether the runtime may retry the request after it may have reached the server.
    public var isIdempotent: Bool
    /// Whether the endpoint is deprecated.
    public var isDeprecated: Bool
    /// Why the server's OpenAPI document differs from this endpoint, when the spec says it is
    /// intended (`drift:`): the drift check reports its differences as notes.
    public var driftReason: String?
    /// The part that also gets a file variant (`stream:`), if any.
    public var stream: Located<StreamedPart>?

    /// The segments of the dotted name.
    public var segments: [String] { name.value.split(separator: ".", omittingEmptySubsequences: false).map(String.init) }

    /// Creates an endpoint.
    public init(
        name: Located<String>,
        method: Located<HTTPMethodName>,
        path: Located<String>,
        summary: String?,
        auth: AuthRequirement,
        parameters: [ParameterDeclaration],
        returns: Located<TypeReference>?,
        session: SessionEffect?,
        isIdempotent: Bool,
        isDeprecated: Bool
    ) {
        self.name = name
        self.method = method
        self.path = path
        self.summary = summary
        self.auth = auth
        self.parameters = parameters
        self.returns = returns
        self.session = session
        self.isIdempotent = isIdempotent
        self.isDeprecated = isDeprecated
    }
}

/// One parameter of an endpoint.
public struct ParameterDeclaration: Hashable, Sendable {
    /// The key as written: the wire name for path and query parameters.
    public var key: Located<String>
    /// Where it travels.
    public var location: ParameterLocation
    /// Its type.
    public var type: Located<TypeReference>
    /// The Swift parameter name.
    public var swiftName: Located<String>
    /// The Swift argument label; `_` for none; `nil` means the same as `swiftName`.
    public var label: Located<String>?
    /// Documentation.
    public var description: String?
    /// For a body: spread the model's fields as arguments instead of taking the model.
    public var flatten: Bool
    /// For a raw-bytes body: its content type.
    public var contentType: String?
    /// Why the server differs on this parameter, when intended (`drift:`).
    public var driftReason: String?
    /// For a raw-bytes body sent as `multipart/form-data`: the name of its one file part (`form:`).
    public var formField: Located<String>?

    /// Creates a parameter.
    public init(
        key: Located<String>,
        location: ParameterLocation,
        type: Located<TypeReference>,
        swiftName: Located<String>,
        label: Located<String>?,
        description: String?,
        flatten: Bool,
        contentType: String?
    ) {
        self.key = key
        self.location = location
        self.type = type
        self.swiftName = swiftName
        self.label = label
        self.description = description
        self.flatten = flatten
        self.contentType = contentType
    }
}

/// A path template segment: literal text or `{name}` / `{name...}`.
public enum PathSegment: Hashable, Sendable {
    case literal(String)
    /// A parameter; `rest` for `{name...}`, which may span `/`.
    case parameter(name: String, rest: Bool)
}

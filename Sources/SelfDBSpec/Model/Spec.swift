/// A whole spec file after loading: the intermediate form between YAML and Swift.
public struct Spec: Hashable, Sendable {
    /// Access level of every generated declaration.
    public enum AccessLevel: String, CaseIterable, Hashable, Sendable {
        case `public`, `package`, `internal`
    }

    /// How endpoints are rooted in Swift.
    public struct ClientOptions: Hashable, Sendable {
        /// The root type: groups become `root.group.subgroup.call(...)`.
        public var name: Located<String>
        /// Emit `extension Name` (the type is hand-written and has an `apiClient` property)
        /// instead of generating `struct Name`.
        public var extendsExistingType: Bool

        /// Creates client options.
        public init(name: Located<String>, extendsExistingType: Bool) {
            self.name = name
            self.extendsExistingType = extendsExistingType
        }
    }

    /// The file the spec was read from, as named by the caller.
    public var file: String
    /// Documentation for the generated file.
    public var description: String?
    /// Access level.
    public var access: AccessLevel
    /// Endpoint root options; `nil` when the spec has no endpoints.
    public var client: ClientOptions?
    /// Error status → error kind.
    public var errors: [ErrorMapping]
    /// Models in declaration order.
    public var models: [ModelDeclaration]
    /// Endpoints in declaration order.
    public var endpoints: [EndpointDeclaration]
    /// Table models in declaration order.
    public var tables: [TableDeclaration]
    /// Server operations this spec leaves to hand-written code (`elsewhere:`).
    public var elsewhere: [ElsewhereDeclaration] = []

    /// Creates a spec.
    public init(
        file: String,
        description: String? = nil,
        access: AccessLevel = .internal,
        client: ClientOptions? = nil,
        errors: [ErrorMapping] = [],
        models: [ModelDeclaration] = [],
        endpoints: [EndpointDeclaration] = [],
        tables: [TableDeclaration] = []
    ) {
        self.file = file
        self.description = description
        self.access = access
        self.client = client
        self.errors = errors
        self.models = models
        self.endpoints = endpoints
        self.tables = tables
    }
}

/// `"METHOD /path": why` under `elsewhere:`: an operation of the server that hand-written code
/// covers (a WebSocket, say), so the drift check does not count it as missing.
public struct ElsewhereDeclaration: Hashable, Sendable {
    /// The HTTP method, upper case.
    public var method: String
    /// The path as the server's OpenAPI document writes it.
    public var path: String
    /// Where the key was written.
    public var location: SourceLocation
    /// What covers it.
    public var reason: String

    /// Creates a declaration.
    public init(method: String, path: String, location: SourceLocation, reason: String) {
        self.method = method
        self.path = path
        self.location = location
        self.reason = reason
    }
}

/// The error categories a status code can map to; the runtime turns each into its typed error.
public enum ErrorKind: String, CaseIterable, Hashable, Sendable {
    case badRequest, unauthorized, forbidden, notFound, notAcceptable, conflict
    case payloadTooLarge, validation, upgradeRequired, rateLimited, server, unavailable
}

/// `status: kind` under `errors:`.
public struct ErrorMapping: Hashable, Sendable {
    /// The HTTP status (400–599).
    public var status: Located<Int>
    /// The category.
    public var kind: Located<ErrorKind>

    /// Creates a mapping.
    public init(status: Located<Int>, kind: Located<ErrorKind>) {
        self.status = status
        self.kind = kind
    }
}

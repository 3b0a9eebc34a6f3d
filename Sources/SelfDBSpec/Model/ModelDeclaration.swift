/// A named type declared under `models:`.
public struct ModelDeclaration: Hashable, Sendable {
    /// What kind of type it is.
    public enum Kind: Hashable, Sendable {
        /// A struct with fields.
        case structure(StructModel)
        /// A string enum that tolerates unknown values.
        case enumeration(EnumModel)
        /// Another name for a type expression.
        case alias(Located<TypeReference>)
    }

    /// The Swift type name (the key under `models:`).
    public var name: Located<String>
    /// Documentation.
    public var description: String?
    /// Its shape.
    public var kind: Kind

    /// Creates a declaration.
    public init(name: Located<String>, description: String?, kind: Kind) {
        self.name = name
        self.description = description
        self.kind = kind
    }
}

/// How field names map to JSON keys in a model.
public enum WireNaming: String, CaseIterable, Hashable, Sendable {
    /// `createdAt` and `created_at` both travel as `created_at` (the default).
    case snakeCase = "snake_case"
    /// `first_name` and `firstName` both travel as `firstName`.
    case camelCase
    /// Keys travel exactly as written.
    case verbatim
}

/// A struct model.
public struct StructModel: Hashable, Sendable {
    /// JSON key naming for the fields.
    public var wire: WireNaming
    /// Fields in declaration order.
    public var fields: [FieldDeclaration]
    /// Extra protocols the generated type conforms to (declared by the runtime or the app).
    public var conformances: [Located<String>]

    /// Creates a struct model.
    public init(wire: WireNaming, fields: [FieldDeclaration], conformances: [Located<String>]) {
        self.wire = wire
        self.fields = fields
        self.conformances = conformances
    }
}

/// One field of a struct model.
public struct FieldDeclaration: Hashable, Sendable {
    /// The key as written in the spec.
    public var key: Located<String>
    /// The field's type.
    public var type: Located<TypeReference>
    /// The Swift property name (derived from the key unless `swift:` overrides it).
    public var swiftName: Located<String>
    /// The JSON key (derived from the model's wire naming unless `wire:` overrides it).
    public var wireName: String
    /// Documentation.
    public var description: String?
    /// A default used by the memberwise initialiser and when decoding a missing key.
    public var defaultValue: Located<LiteralValue>?
    /// `lenient: true`: a value of another form decodes as `nil` (or the default) instead
    /// of failing the whole response. For fields the app can live without.
    public var isLenient: Bool
    /// Why the server's schema differs on this field, when intended (`drift:`).
    public var driftReason: String?

    /// Creates a field.
    public init(key: Located<String>, type: Located<TypeReference>, swiftName: Located<String>, wireName: String, description: String?, defaultValue: Located<LiteralValue>?, isLenient: Bool = false) {
        self.key = key
        self.type = type
        self.swiftName = swiftName
        self.wireName = wireName
        self.description = description
        self.defaultValue = defaultValue
        self.isLenient = isLenient
    }
}

/// A string enum model.
public struct EnumModel: Hashable, Sendable {
    /// One value and its Swift case name.
    public struct Case: Hashable, Sendable {
        /// The value on the wire.
        public var value: Located<String>
        /// The Swift case name.
        public var swiftName: Located<String>

        /// Creates a case.
        public init(value: Located<String>, swiftName: Located<String>) {
            self.value = value
            self.swiftName = swiftName
        }
    }

    /// Cases in declaration order.
    public var cases: [Case]

    /// Creates an enum model.
    public init(cases: [Case]) {
        self.cases = cases
    }
}

/// A literal written in a spec (defaults).
public enum LiteralValue: Hashable, Sendable, CustomStringConvertible {
    case null
    case bool(Bool)
    case int(Int64)
    case double(Double)
    case string(String)

    /// The literal as the spec would spell it.
    public var description: String {
        switch self {
        case .null: "null"
        case .bool(let value): String(value)
        case .int(let value): String(value)
        case .double(let value): String(value)
        case .string(let value): "\"\(value)\""
        }
    }
}

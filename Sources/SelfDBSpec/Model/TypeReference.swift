/// A type as written in a spec: `String`, `UserRead?`, `[TableRead]`, `[String: JSON]`.
public indirect enum TypeReference: Hashable, Sendable, CustomStringConvertible {
    /// A built-in scalar or a named model, enum or alias of the same spec.
    case named(String)
    /// `T?`.
    case optional(TypeReference)
    /// `[T]`.
    case array(TypeReference)
    /// `[String: T]` (JSON object keys are always strings).
    case map(TypeReference)

    /// The spelling the spec language uses.
    public var description: String {
        switch self {
        case .named(let name): name
        case .optional(let wrapped): "\(wrapped)?"
        case .array(let element): "[\(element)]"
        case .map(let value): "[String: \(value)]"
        }
    }

    /// The type without an outer `?`.
    public var nonOptional: TypeReference {
        if case .optional(let wrapped) = self { return wrapped.nonOptional }
        return self
    }

    /// Whether the outer type is optional.
    public var isOptional: Bool {
        if case .optional = self { return true }
        return false
    }

    /// The named type at the core (`[UserRead]?` → `UserRead`).
    public var innermostName: String {
        switch self {
        case .named(let name): name
        case .optional(let inner), .array(let inner), .map(let inner): inner.innermostName
        }
    }
}

/// The scalar types every spec knows without declaring them.
public enum BuiltinType: String, CaseIterable, Hashable, Sendable {
    case string = "String"
    case int = "Int"
    case int64 = "Int64"
    case double = "Double"
    case bool = "Bool"
    case date = "Date"
    case uuid = "UUID"
    case url = "URL"
    /// Raw bytes: base64 inside JSON, the whole body when used as a body or response.
    case bytes = "Bytes"
    /// Any JSON value.
    case json = "JSON"
    /// `asc` or `desc`: the runtime's `SortDirection`, shared by every list endpoint and the
    /// typed query builder.
    case sortDirection = "SortDirection"

    /// Whether a value of this type can stand in a URL path or query string.
    public var isScalarParameter: Bool {
        switch self {
        case .string, .int, .int64, .double, .bool, .date, .uuid, .url, .sortDirection: true
        case .bytes, .json: false
        }
    }
}

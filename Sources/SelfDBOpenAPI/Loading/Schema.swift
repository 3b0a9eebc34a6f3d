/// A JSON Schema as the drift check compares it: a type, or a reference to a component.
public indirect enum Schema: Sendable, Equatable, CustomStringConvertible {
    case reference(String)
    case string(format: String?)
    case enumeration([String])
    case integer
    case number
    case boolean
    case array(Schema)
    /// An object: its properties, which are required, and the schema of other keys.
    case object(properties: [String: Schema], required: Set<String>, additional: Schema?)
    /// `X` or null (`anyOf: [X, {type: null}]`, `type: [X, "null"]`, `nullable: true`).
    case nullable(Schema)
    /// Several shapes (`anyOf`/`oneOf` without null, or with more than one other).
    case union([Schema])
    case null
    /// No constraint (`{}`).
    case any

    init(_ object: [String: Any]) {
        self = Self.read(object)
    }

    private static func read(_ object: [String: Any]) -> Schema {
        if let reference = object["$ref"] as? String {
            return .reference(String(reference.split(separator: "/").last ?? ""))
        }
        for key in ["anyOf", "oneOf"] {
            if let options = object[key] as? [[String: Any]] {
                let schemas = options.map(read)
                let others = schemas.filter { $0 != .null }
                let base: Schema = others.count == 1 ? others[0] : .union(others)
                return others.count < schemas.count ? .nullable(base) : base
            }
        }
        if let all = object["allOf"] as? [[String: Any]], all.count == 1 { return read(all[0]) }
        var base: Schema
        var types: [String] = []
        if let type = object["type"] as? String { types = [type] } else if let list = object["type"] as? [String] { types = list }
        let nonNull = types.filter { $0 != "null" }
        if let values = object["enum"] as? [Any] {
            base = .enumeration(values.map { "\($0)" })
        } else {
            switch nonNull.first {
            case "string": base = .string(format: object["format"] as? String)
            case "integer": base = .integer
            case "number": base = .number
            case "boolean": base = .boolean
            case "array": base = .array((object["items"] as? [String: Any]).map(read) ?? .any)
            case "object":
                let properties = (object["properties"] as? [String: Any] ?? [:]).compactMapValues { ($0 as? [String: Any]).map(read) }
                let additional: Schema? =
                    if let schema = object["additionalProperties"] as? [String: Any] { read(schema) } else if object["additionalProperties"] as? Bool == true { .any } else { nil }
                base = .object(properties: properties, required: Set(object["required"] as? [String] ?? []), additional: additional)
            case nil: base = types.contains("null") ? .null : (object["properties"] != nil ? read(object.merging(["type": "object"]) { $1 }) : .any)
            default: base = .any
            }
        }
        if types.contains("null") && !nonNull.isEmpty || object["nullable"] as? Bool == true { base = .nullable(base) }
        return base
    }

    /// The schema in words, for a message (`string (uuid) or null`).
    public var description: String {
        switch self {
        case .reference(let name): name
        case .string(let format): format.map { "string (\($0))" } ?? "string"
        case .enumeration(let values): "one of \(values.joined(separator: ", "))"
        case .integer: "integer"
        case .number: "number"
        case .boolean: "boolean"
        case .array(let element): "array of \(element)"
        case .object: "object"
        case .nullable(let base): "\(base) or null"
        case .union(let options): options.map(\.description).joined(separator: " | ")
        case .null: "null"
        case .any: "any JSON"
        }
    }
}

import SelfDBSpec

/// Spells spec types in Swift. Foundation types are qualified because generated groups can
/// be named `Data` or `Date` and would otherwise shadow them.
struct TypeMapper {
    let spec: Spec

    func swiftType(_ type: TypeReference) -> String {
        switch type {
        case .named(let name):
            switch BuiltinType(rawValue: name) {
            case .string: "String"
            case .int: "Int"
            case .int64: "Int64"
            case .double: "Double"
            case .bool: "Bool"
            case .date: "Foundation.Date"
            case .uuid: "Foundation.UUID"
            case .url: "Foundation.URL"
            case .bytes: "Foundation.Data"
            case .json: "JSONValue"
            case .sortDirection: "SortDirection"
            case nil: name
            }
        case .optional(let wrapped): swiftType(wrapped) + "?"
        case .array(let element): "[\(swiftType(element))]"
        case .map(let value): "[String: \(swiftType(value))]"
        }
    }

    /// The type with aliases replaced.
    func resolved(_ type: TypeReference) -> TypeReference {
        var current = type
        for _ in 0..<32 {
            guard case .named(let name) = current.nonOptional,
                let model = spec.models.first(where: { $0.name.value == name }),
                case .alias(let target) = model.kind
            else { return current }
            current = current.isOptional && !target.value.isOptional ? .optional(target.value) : target.value
        }
        return current
    }

    /// Whether `type` is raw bytes (possibly through aliases).
    func isBytes(_ type: TypeReference) -> Bool {
        resolved(type).nonOptional == .named(BuiltinType.bytes.rawValue)
    }

    /// The declaration behind a named type, following aliases.
    func declaration(of type: TypeReference) -> ModelDeclaration? {
        var current = type.nonOptional
        for _ in 0..<32 {
            guard case .named(let name) = current, let model = spec.models.first(where: { $0.name.value == name }) else { return nil }
            if case .alias(let target) = model.kind {
                current = target.value.nonOptional
                continue
            }
            return model
        }
        return nil
    }

    /// The Swift expression for a default literal of `type`.
    func literal(_ value: LiteralValue, for type: TypeReference) -> String {
        if case .enumeration(let enumeration) = declaration(of: type)?.kind, case .string(let text) = value,
            let match = enumeration.cases.first(where: { $0.value.value == text })
        {
            return "." + SwiftNamesRendering.member(match.swiftName.value)
        }
        if type.nonOptional == .named(BuiltinType.sortDirection.rawValue), case .string(let text) = value {
            return "." + text
        }
        if type.nonOptional == .named(BuiltinType.json.rawValue) {
            switch value {
            case .null: return ".null"
            case .bool(let flag): return ".bool(\(flag))"
            case .int(let number): return ".integer(\(number))"
            case .double(let number): return ".number(\(number))"
            case .string(let text): return ".string(\(text.swiftLiteral))"
            }
        }
        switch value {
        case .null: return "nil"
        case .bool(let flag): return String(flag)
        case .int(let number): return String(number)
        case .double(let number): return String(number)
        case .string(let text): return text.swiftLiteral
        }
    }
}

/// Names as they must be written in generated source.
enum SwiftNamesRendering {
    /// A declaration or parameter name, backticked when it is a keyword.
    static func member(_ name: String) -> String { SwiftNames.escaped(name) }
}

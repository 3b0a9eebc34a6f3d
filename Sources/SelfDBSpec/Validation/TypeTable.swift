/// The names a spec's type expressions can refer to, and what each is.
struct TypeTable {
    enum Entry {
        case builtin(BuiltinType)
        case structure(StructModel)
        case enumeration(EnumModel)
        case alias(TypeReference)
        case table(TableDeclaration)
    }

    private var entries: [String: Entry] = [:]

    init(_ spec: Spec) {
        for builtin in BuiltinType.allCases { entries[builtin.rawValue] = .builtin(builtin) }
        for model in spec.models where entries[model.name.value] == nil {
            switch model.kind {
            case .structure(let structure): entries[model.name.value] = .structure(structure)
            case .enumeration(let enumeration): entries[model.name.value] = .enumeration(enumeration)
            case .alias(let type): entries[model.name.value] = .alias(type.value)
            }
        }
        for table in spec.tables where entries[table.name.value] == nil {
            entries[table.name.value] = .table(table)
        }
    }

    var allNames: [String] { entries.keys.sorted() }

    func isKnown(_ name: String) -> Bool { entries[name] != nil }

    func entry(_ name: String) -> Entry? { entries[name] }

    /// Whether `type` is raw bytes (`Bytes`, through aliases, optional or not): the bodies and
    /// answers sent as they are, which `contentType`, `form` and `stream` apply to.
    func isBytes(_ type: TypeReference) -> Bool {
        resolved(type).nonOptional == .named(BuiltinType.bytes.rawValue)
    }

    /// The type with aliases replaced, as far as they resolve (cycles stop the expansion).
    func resolved(_ type: TypeReference, depth: Int = 0) -> TypeReference {
        guard depth < 32 else { return type }
        switch type {
        case .named(let name):
            if case .alias(let target) = entries[name] { return resolved(target, depth: depth + 1) }
            return type
        case .optional(let wrapped):
            let inner = resolved(wrapped, depth: depth + 1)
            return inner.isOptional ? inner : .optional(inner)
        case .array(let element): return .array(resolved(element, depth: depth + 1))
        case .map(let value): return .map(resolved(value, depth: depth + 1))
        }
    }

    /// Whether a value of `type` fits in a URL path or query string: a built-in scalar or a
    /// string enum, possibly optional.
    func isScalar(_ type: TypeReference) -> Bool {
        guard case .named(let name) = resolved(type).nonOptional else { return false }
        switch entries[name] {
        case .builtin(let builtin): return builtin.isScalarParameter
        case .enumeration: return true
        default: return false
        }
    }

    /// The struct model behind `type`, if it is one.
    func structure(_ type: TypeReference) -> StructModel? {
        guard case .named(let name) = resolved(type) else { return nil }
        if case .structure(let model) = entries[name] { return model }
        return nil
    }

    /// The enum model behind `type`, if it is one.
    func enumeration(_ type: TypeReference) -> EnumModel? {
        guard case .named(let name) = resolved(type).nonOptional else { return nil }
        if case .enumeration(let model) = entries[name] { return model }
        return nil
    }

    func isCyclicAlias(_ name: String) -> Bool {
        var visited: Set<String> = []
        var pending = [name]
        while let current = pending.popLast() {
            guard case .alias(let target) = entries[current] else { continue }
            for referenced in target.namedTypes {
                if referenced == name { return true }
                if visited.insert(referenced).inserted { pending.append(referenced) }
            }
        }
        return false
    }
}

extension TypeReference {
    /// Every named type the expression mentions.
    var namedTypes: [String] {
        switch self {
        case .named(let name): [name]
        case .optional(let inner), .array(let inner), .map(let inner): inner.namedTypes
        }
    }
}

extension SpecValidator {
    /// Members every generated enum has.
    static let generatedEnumMembers: Set<String> = ["rawValue", "knownCases", "hashValue", "init"]

    mutating func checkModel(_ model: ModelDeclaration) {
        switch model.kind {
        case .alias(let target):
            checkResolves(target)
        case .enumeration(let enumeration):
            checkEnum(enumeration, in: model.name.value)
        case .structure(let structure):
            checkStruct(structure, in: model.name)
        }
    }

    private mutating func checkStruct(_ structure: StructModel, in model: Located<String>) {
        var swiftNames: [String: SourceLocation] = [:]
        var wireNames: [String: SourceLocation] = [:]
        for field in structure.fields {
            checkResolves(field.type)
            checkIdentifier(field.swiftName, "field name", allowKeywords: true)
            if let first = swiftNames[field.swiftName.value] {
                error("field '\(field.key.value)' has the Swift name '\(field.swiftName.value)' of the field at line \(first.line); set 'swift:' on one of them", at: field.key.location)
            } else {
                swiftNames[field.swiftName.value] = field.key.location
            }
            if let first = wireNames[field.wireName] {
                error("field '\(field.key.value)' travels as '\(field.wireName)' like the field at line \(first.line); set 'wire:' on one of them", at: field.key.location)
            } else {
                wireNames[field.wireName] = field.key.location
            }
            if let defaultValue = field.defaultValue {
                checkDefault(defaultValue, for: field.type.value, field: field.key.value)
            }
            if field.isLenient, !field.type.value.isOptional, field.defaultValue == nil {
                error("lenient field '\(field.key.value)' needs an optional type or a default: a value it cannot read becomes nil or the default", at: field.key.location)
            }
        }
        for conformance in structure.conformances {
            checkIdentifier(conformance, "protocol name")
        }
        if containsItself(model.value, via: structure) {
            error("model '\(model.value)' contains itself through non-collection fields, which would make it infinitely large; use an array or a map", at: model.location)
        }
    }

    private mutating func checkEnum(_ enumeration: EnumModel, in model: String) {
        var values: [String: SourceLocation] = [:]
        var cases: [String: Located<String>] = [:]
        for item in enumeration.cases {
            if let first = values[item.value.value] {
                error("duplicate value '\(item.value.value)' in enum '\(model)'; first listed at line \(first.line)", at: item.value.location)
                continue
            }
            values[item.value.value] = item.value.location
            checkIdentifier(item.swiftName, "enum case name", allowKeywords: true)
            if item.swiftName.value == "unknown" {
                error("enum case name 'unknown' is reserved for values the spec does not list; map the value to another name, e.g. '\(item.value.value): unknownValue'", at: item.value.location)
            } else if Self.generatedEnumMembers.contains(item.swiftName.value) {
                error(
                    "enum case name '\(item.swiftName.value)' would clash with the generated member of the same name; map the value to another name, e.g. '\(item.value.value): \(item.swiftName.value)Value'",
                    at: item.value.location
                )
            }
            if let first = cases[item.swiftName.value] {
                error("enum values '\(first.value)' and '\(item.value.value)' both become case '\(item.swiftName.value)'; use the mapping form 'VALUE: caseName' to name them", at: item.value.location)
            } else {
                cases[item.swiftName.value] = item.value
            }
        }
    }

    /// Whether a default literal can initialise a value of `type`.
    mutating func checkDefault(_ literal: Located<LiteralValue>, for type: TypeReference, field: String) {
        let resolved = types.resolved(type)
        if literal.value == .null {
            if !resolved.isOptional, resolved != .named(BuiltinType.json.rawValue) {
                error("default of '\(field)' is null but its type '\(type)' is not optional", at: literal.location)
            }
            return
        }
        let fits: Bool
        switch resolved.nonOptional {
        case .named(let name):
            switch types.entry(name) {
            case .builtin(let builtin):
                fits = builtin.accepts(literal.value)
            case .enumeration(let enumeration):
                if case .string(let text) = literal.value {
                    fits = enumeration.cases.contains { $0.value.value == text }
                } else {
                    fits = false
                }
            default:
                fits = false
            }
        default:
            fits = false
        }
        if !fits {
            error("default \(literal.value) does not fit the type '\(type)' of '\(field)'", at: literal.location)
        }
    }

    private func containsItself(_ name: String, via structure: StructModel) -> Bool {
        var visited: Set<String> = []
        var pending = structure.fields.map(\.type.value)
        while let type = pending.popLast() {
            // Arrays and maps are heap storage: only direct and optional fields count.
            guard case .named(let target) = types.resolved(type).nonOptional else { continue }
            if target == name { return true }
            guard visited.insert(target).inserted, let model = types.structure(.named(target)) else { continue }
            pending.append(contentsOf: model.fields.map(\.type.value))
        }
        return false
    }
}

extension BuiltinType {
    /// Whether a literal can stand for a value of this type.
    func accepts(_ literal: LiteralValue) -> Bool {
        switch (self, literal) {
        case (.json, _): true
        // Dates, UUIDs and URLs have no literal form that compiles without a failable parse.
        case (.string, .string): true
        case (.sortDirection, .string(let text)): text == "asc" || text == "desc"
        case (.int, .int), (.int64, .int), (.double, .int), (.double, .double): true
        case (.bool, .bool): true
        default: false
        }
    }
}

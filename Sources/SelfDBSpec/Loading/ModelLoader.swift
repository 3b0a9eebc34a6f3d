/// Loads one entry of `models:`.
enum ModelLoader {
    static let keys = ["description", "wire", "fields", "conforms", "enum", "alias"]
    static let fieldKeys = ["type", "wire", "swift", "description", "default", "lenient", "drift"]

    static func load(_ entry: SpecNode.Entry, reader: inout NodeReader) -> ModelDeclaration {
        let name = Located(entry.key.text, at: entry.key.location)
        let empty = ModelDeclaration(name: name, description: nil, kind: .structure(StructModel(wire: .snakeCase, fields: [], conformances: [])))
        guard let mapping = reader.mapping(entry.value, "model '\(name.value)'") else { return empty }
        reader.checkKeys(mapping, allowed: keys, in: "model '\(name.value)'")
        let description = reader.optionalString(mapping, "description", "'description'")?.value

        let shapes = ["fields", "enum", "alias"].filter { reader.entry(mapping, $0) != nil }
        if shapes.count > 1, let second = reader.entry(mapping, shapes[1]) {
            reader.error("model '\(name.value)' has both '\(shapes[0])' and '\(shapes[1])'; a model is a struct ('fields'), an enum ('enum') or an alias ('alias')", at: second.key.location)
        }
        if reader.entry(mapping, "fields") == nil {
            // `wire` and `conforms` shape struct models only; ignoring them silently would
            // leave the writer believing they took effect.
            for key in ["wire", "conforms"] {
                if let entry = reader.entry(mapping, key) {
                    reader.error("'\(key)' applies to struct models ('fields') only", at: entry.key.location)
                }
            }
        }
        if let aliasEntry = reader.entry(mapping, "alias") {
            guard let type = reader.typeReference(aliasEntry.value, "'alias'") else { return empty }
            return ModelDeclaration(name: name, description: description, kind: .alias(type))
        }
        if let enumEntry = reader.entry(mapping, "enum") {
            return ModelDeclaration(name: name, description: description, kind: .enumeration(loadEnum(enumEntry.value, model: name.value, reader: &reader)))
        }
        guard let fieldsEntry = reader.entry(mapping, "fields") else {
            reader.error("model '\(name.value)' needs 'fields', 'enum' or 'alias'", at: entry.key.location)
            return empty
        }
        var wire = WireNaming.snakeCase
        if let wireEntry = reader.entry(mapping, "wire") {
            wire = reader.choice(wireEntry.value, "wire naming", as: WireNaming.self)?.value ?? .snakeCase
        }
        var conformances: [Located<String>] = []
        if let conforms = reader.entry(mapping, "conforms") {
            if case .sequence(let sequence) = conforms.value {
                conformances = sequence.items.compactMap { reader.string($0, "a conformance") }
            } else {
                reader.error("'conforms' must be a list of protocol names", at: conforms.value.location)
            }
        }
        var fields: [FieldDeclaration] = []
        if let fieldMapping = reader.mapping(fieldsEntry.value, "'fields' of '\(name.value)'") {
            if fieldMapping.entries.isEmpty {
                reader.warning("model '\(name.value)' has no fields", at: fieldsEntry.key.location)
            }
            for field in fieldMapping.entries {
                if let loaded = loadField(field, wire: wire, reader: &reader) { fields.append(loaded) }
            }
        }
        return ModelDeclaration(name: name, description: description, kind: .structure(StructModel(wire: wire, fields: fields, conformances: conformances)))
    }

    private static func loadField(_ entry: SpecNode.Entry, wire: WireNaming, reader: inout NodeReader) -> FieldDeclaration? {
        let key = Located(entry.key.text, at: entry.key.location)
        var swiftName = Located(NameConversion.swiftIdentifier(fromWireName: key.value), at: key.location)
        var wireName = wireKey(key.value, wire)
        var description: String?
        var defaultValue: Located<LiteralValue>?
        var isLenient = false
        var driftReason: String?
        let type: Located<TypeReference>?
        if case .mapping(let mapping) = entry.value {
            reader.checkKeys(mapping, allowed: fieldKeys, in: "field '\(key.value)'")
            guard let typeEntry = reader.entry(mapping, "type") else {
                reader.error("field '\(key.value)' needs a 'type'", at: entry.key.location)
                return nil
            }
            type = reader.typeReference(typeEntry.value, "the type of '\(key.value)'")
            if let override = reader.optionalString(mapping, "swift", "'swift'") { swiftName = override }
            if let override = reader.optionalString(mapping, "wire", "'wire'") { wireName = override.value }
            description = reader.optionalString(mapping, "description", "'description'")?.value
            if let defaultEntry = reader.entry(mapping, "default") {
                defaultValue = reader.literal(defaultEntry.value, "'default'")
            }
            isLenient = reader.bool(mapping, "lenient", "'lenient'", default: false)
            driftReason = reader.optionalString(mapping, "drift", "'drift'")?.value
        } else {
            type = reader.typeReference(entry.value, "the type of '\(key.value)'")
        }
        guard let type else { return nil }
        var field = FieldDeclaration(key: key, type: type, swiftName: swiftName, wireName: wireName, description: description, defaultValue: defaultValue, isLenient: isLenient)
        field.driftReason = driftReason
        return field
    }

    static func wireKey(_ key: String, _ naming: WireNaming) -> String {
        switch naming {
        case .snakeCase: NameConversion.snakeCase(key)
        case .camelCase: NameConversion.lowerCamelCase(key)
        case .verbatim: key
        }
    }

    private static func loadEnum(_ node: SpecNode, model: String, reader: inout NodeReader) -> EnumModel {
        var cases: [EnumModel.Case] = []
        switch node {
        case .sequence(let sequence):
            for item in sequence.items {
                guard let value = reader.string(item, "an enum value") else { continue }
                cases.append(.init(value: value, swiftName: Located(NameConversion.swiftIdentifier(fromWireName: value.value), at: value.location)))
            }
        case .mapping(let mapping):
            // `VALUE: swiftCaseName`, for values whose derived names collide or read badly.
            for entry in mapping.entries {
                guard let swiftName = reader.string(entry.value, "the case name of '\(entry.key.text)'") else { continue }
                cases.append(.init(value: Located(entry.key.text, at: entry.key.location), swiftName: swiftName))
            }
        case .scalar:
            reader.error("'enum' of '\(model)' must list its values, e.g. [USER, ADMIN]", at: node.location)
        }
        if cases.isEmpty, !(node.isScalar) {
            reader.error("enum '\(model)' has no values", at: node.location)
        }
        return EnumModel(cases: cases)
    }
}

extension SpecNode {
    fileprivate var isScalar: Bool {
        if case .scalar = self { return true }
        return false
    }
}

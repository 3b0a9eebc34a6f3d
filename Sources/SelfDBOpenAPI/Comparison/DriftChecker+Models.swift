import SelfDBSpec

extension DriftChecker {
    /// What the endpoint returns against the JSON body of the server's success answer.
    mutating func checkResponse(of endpoint: EndpointDeclaration, against operation: OpenAPIDocument.Operation) {
        let successes = operation.responses.keys.filter { (200..<300).contains($0) }.sorted()
        guard let returns = endpoint.returns else { return }
        // The first success with a JSON body, else the first success (a 204, say).
        guard let status = successes.first(where: { operation.responses[$0]?.flatMap { $0 } != nil }) ?? successes.first else {
            report(.error, "the server declares no success answer for \(operation.method) \(operation.path)", at: returns.location, declared: endpoint.driftReason)
            return
        }
        guard let schemaOrNil = operation.responses[status], let schema = schemaOrNil else {
            if case .named(let name) = returns.value.nonOptional, name == BuiltinType.bytes.rawValue { return }
            report(.error, "the server answers \(status) with no JSON body; the spec expects \(returns.value)", at: returns.location, declared: endpoint.driftReason)
            return
        }
        compareValue(returns.value, schema, what: "the answer", at: returns.location, declared: endpoint.driftReason)
    }

    /// A spec type against a schema; models are compared field by field (once per pair).
    mutating func compareValue(_ type: TypeReference, _ schema: Schema, what: String, at location: SourceLocation, declared reason: String?) {
        let resolved = document.resolved(schema)
        switch (type, resolved) {
        case (_, .any), (_, .union):
            return
        case (.optional(let wrapped), _):
            compareValue(wrapped, resolved.nonNull, what: what, at: location, declared: reason)
        case (_, .nullable(let base)):
            compareValue(type, base, what: what, at: location, declared: reason)
        case (.array(let element), .array(let items)):
            compareValue(element, items, what: "the elements of \(what)", at: location, declared: reason)
        case (.map(let value), .object(_, _, let additional)):
            if let additional { compareValue(value, additional, what: "the values of \(what)", at: location, declared: reason) }
        case (.named(let name), _):
            compareNamed(name, schema: schema, resolved: resolved, what: what, at: location, declared: reason)
        default:
            report(.error, "\(what) is \(resolved) on the server; the spec says \(type)", at: location, declared: reason)
        }
    }

    private mutating func compareNamed(_ name: String, schema: Schema, resolved: Schema, what: String, at location: SourceLocation, declared reason: String?) {
        if let builtin = BuiltinType(rawValue: name) {
            if !Self.fits(builtin, resolved) {
                report(.error, "\(what) is \(resolved) on the server; the spec says \(name)", at: location, declared: reason)
            }
            return
        }
        guard let model = spec.models.first(where: { $0.name.value == name }) else { return }
        switch model.kind {
        case .alias(let target):
            compareValue(target.value, schema, what: what, at: location, declared: reason)
        case .enumeration(let enumeration):
            guard case .enumeration(let values) = resolved else {
                if case .string = resolved { return }
                report(.error, "\(what) is \(resolved) on the server; the spec says the enum \(name)", at: location, declared: reason)
                return
            }
            for value in enumeration.cases where !values.contains(value.value.value) {
                report(.error, "the server knows no case '\(value.value.value)' of \(name) (it has \(values.joined(separator: ", ")))", at: value.value.location)
            }
        case .structure(let structure):
            guard case .object(let properties, let required, let additional) = resolved else {
                report(.error, "\(what) is \(resolved) on the server; the spec says the model \(name)", at: location, declared: reason)
                return
            }
            let serverName: String = if case .reference(let referenced) = schema { referenced } else { "answer" }
            guard compared.insert("\(name)|\(serverName)").inserted else { return }
            compareFields(of: model, structure, serverName: serverName, properties: properties, required: required, additional: additional)
        }
    }

    private mutating func compareFields(
        of model: ModelDeclaration,
        _ structure: StructModel,
        serverName: String,
        properties: [String: Schema],
        required: Set<String>,
        additional: Schema?
    ) {
        let modelName = model.name.value
        for field in structure.fields {
            let wire = field.wireName
            let reason = field.driftReason
            guard let property = properties[wire] else {
                if additional == nil {
                    report(.error, "the server's \(serverName) has no field '\(wire)' (\(modelName).\(field.swiftName.value))", at: field.key.location, declared: reason)
                }
                continue
            }
            let specOptional = field.type.value.isOptional || field.defaultValue != nil
            let serverNull = document.resolved(property).isNullable || property.isNullable
            if serverNull, !specOptional, !field.isLenient {
                report(.error, "the server's \(serverName).\(wire) may be null; \(modelName).\(field.swiftName.value) is not optional", at: field.key.location, declared: reason)
            } else if !serverNull, required.contains(wire), field.type.value.isOptional {
                report(.warning, "the server always sends \(serverName).\(wire); \(modelName).\(field.swiftName.value) is optional", at: field.key.location, declared: reason)
            }
            let before = findings.count
            compareValue(field.type.value.nonOptional, document.resolved(property).nonNull, what: "\(serverName).\(wire)", at: field.key.location, declared: reason)
            // A lenient field decodes a value of another form as nil: a warning, not an error.
            if field.isLenient, reason == nil {
                for index in before..<findings.count where findings[index].severity == .error { findings[index].severity = .warning }
            }
        }
        let known = Set(structure.fields.map(\.wireName))
        for wire in properties.keys.sorted() where !known.contains(wire) {
            report(.warning, "the server's \(serverName) has '\(wire)'; \(modelName) does not", at: model.name.location)
        }
    }

    /// Whether a builtin spec type reads what the schema describes.
    static func fits(_ builtin: BuiltinType, _ schema: Schema) -> Bool {
        switch (builtin, schema) {
        case (.json, _), (_, .any), (_, .union): true
        case (.string, .string), (.string, .enumeration), (.sortDirection, .string), (.sortDirection, .enumeration): true
        case (.url, .string), (.bytes, .string): true
        case (.uuid, .string(let format)): format == nil || format == "uuid"
        case (.date, .string(let format)): format == nil || format == "date-time" || format == "date"
        case (.int, .integer), (.int64, .integer): true
        case (.double, .number), (.double, .integer): true
        case (.bool, .boolean): true
        default: false
        }
    }
}

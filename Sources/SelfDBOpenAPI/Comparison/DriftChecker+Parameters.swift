import SelfDBSpec

extension DriftChecker {
    /// Path and query parameters by name (path ones by position: a spec may name `{id}` what
    /// the server names `{table_id}`), and a JSON body against the request body's schema.
    mutating func checkParameters(of endpoint: EndpointDeclaration, against operation: OpenAPIDocument.Operation) {
        let specPathNames = Self.pathParameterNames(endpoint.path.value)
        let serverPathNames = Self.pathParameterNames(operation.path)
        var matched: Set<String> = []
        for parameter in endpoint.parameters {
            let reason = parameter.driftReason ?? endpoint.driftReason
            let name = parameter.key.value
            switch parameter.location {
            case .path:
                guard let index = specPathNames.firstIndex(of: name), index < serverPathNames.count,
                    let server = operation.parameters.first(where: { $0.location == "path" && $0.name == serverPathNames[index] })
                else { continue }
                matched.insert(server.name)
                compareValue(parameter.type.value, server.schema, what: "path parameter '\(name)'", at: parameter.key.location, declared: reason)
            case .query:
                guard let server = operation.parameters.first(where: { $0.name == name }) else {
                    report(.error, "the server takes no parameter '\(name)' for \(operation.method) \(operation.path)", at: parameter.key.location, declared: reason)
                    continue
                }
                matched.insert(server.name)
                guard server.location == "query" else {
                    report(.error, "'\(name)' is a \(server.location) parameter on the server, not a query parameter", at: parameter.key.location, declared: reason)
                    continue
                }
                if server.required, parameter.type.value.isOptional {
                    report(.warning, "the server requires '\(name)'; the spec makes it optional", at: parameter.key.location, declared: reason)
                }
                compareValue(parameter.type.value.nonOptional, document.resolved(server.schema).nonNull, what: "parameter '\(name)'", at: parameter.key.location, declared: reason)
            case .body:
                checkBody(parameter, of: endpoint, against: operation, declared: reason)
            }
        }
        for server in operation.parameters where server.required && server.location == "query" && !matched.contains(server.name) {
            report(.error, "the server requires the query parameter '\(server.name)'; the spec does not send it", at: endpoint.path.location, declared: endpoint.driftReason)
        }
    }

    private mutating func checkBody(_ parameter: ParameterDeclaration, of endpoint: EndpointDeclaration, against operation: OpenAPIDocument.Operation, declared reason: String?) {
        let type = parameter.type.value.nonOptional
        if let field = parameter.formField {
            checkFormBody(field, against: operation, declared: reason)
            return
        }
        // Raw bytes go as the body itself: a server that streams them declares no schema.
        if case .named(let name) = type, name == BuiltinType.bytes.rawValue || name == BuiltinType.json.rawValue { return }
        guard let body = operation.requestBody else {
            report(.error, "\(operation.method) \(operation.path) takes no JSON body on the server", at: parameter.key.location, declared: reason)
            return
        }
        compareValue(type, body, what: "the body", at: parameter.key.location, declared: reason)
    }

    /// A `form:` body is one file part: the server must take a form with that field.
    private mutating func checkFormBody(_ field: Located<String>, against operation: OpenAPIDocument.Operation, declared reason: String?) {
        guard let form = operation.formBody else {
            report(.error, "\(operation.method) \(operation.path) takes no multipart form on the server", at: field.location, declared: reason)
            return
        }
        guard case .object(let properties, let required, _) = document.resolved(form), properties[field.value] != nil else {
            report(.error, "the server's form has no field '\(field.value)'", at: field.location, declared: reason)
            return
        }
        for name in required.sorted() where name != field.value {
            report(.error, "the server's form also requires '\(name)'; the spec sends only '\(field.value)'", at: field.location, declared: reason)
        }
    }

    static func pathParameterNames(_ path: String) -> [String] {
        path.split(separator: "/").compactMap { segment in
            guard segment.hasPrefix("{"), segment.hasSuffix("}") else { return nil }
            return String(segment.dropFirst().dropLast()).replacingOccurrences(of: ":path", with: "").replacingOccurrences(of: "...", with: "")
        }
    }
}

extension TypeReference {
    var isOptional: Bool {
        if case .optional = self { return true }
        return false
    }
}

extension Schema {
    /// Without its `or null`.
    var nonNull: Schema {
        if case .nullable(let base) = self { return base }
        return self
    }

    var isNullable: Bool {
        switch self {
        case .nullable, .null: true
        default: false
        }
    }
}

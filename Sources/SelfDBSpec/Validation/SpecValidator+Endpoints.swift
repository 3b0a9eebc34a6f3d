extension SpecValidator {
    mutating func checkClient() {
        guard let client = spec.client else { return }
        checkIdentifier(client.name, "client name")
        if !client.extendsExistingType, let model = (spec.models.map(\.name) + spec.tables.map(\.name)).first(where: { $0.value == client.name.value }) {
            error("client name '\(client.name.value)' is also a type declared at line \(model.location.line); the endpoint root needs a name of its own", at: client.name.location)
        }
        if spec.endpoints.isEmpty {
            warning("'client' is set but the spec has no endpoints", at: client.name.location)
        }
    }

    mutating func checkEndpoints() {
        var calls: [String: SourceLocation] = [:]
        var groups: [String: SourceLocation] = [:]
        for endpoint in spec.endpoints {
            checkEndpointName(endpoint, calls: &calls, groups: &groups)
            checkPath(endpoint)
            checkParameters(endpoint)
            checkStream(endpoint)
            if let returns = endpoint.returns { checkResolves(returns) }
            if let session = endpoint.session, session != .signOut {
                if let returns = endpoint.returns {
                    let conforms = types.structure(returns.value)?.conformances.contains { $0.value == "SessionTokens" } ?? false
                    if !conforms {
                        error(
                            "'session: \(session.rawValue)' needs a 'returns' model that lists 'SessionTokens' under 'conforms', so the client can keep the tokens; '\(returns.value)' does not",
                            at: returns.location
                        )
                    }
                } else {
                    error("endpoint '\(endpoint.name.value)' has 'session: \(session.rawValue)' but no 'returns' to take the tokens from", at: endpoint.name.location)
                }
            }
            if endpoint.method.value == .head, let returns = endpoint.returns {
                error("HEAD responses have no body; remove 'returns'", at: returns.location)
            }
        }
        // A group's Swift type must not shadow a model: inside the group the model's name
        // would then mean the group.
        let declared = Dictionary(spec.models.map { ($0.name.value, $0.name.location) } + spec.tables.map { ($0.name.value, $0.name.location) }, uniquingKeysWith: { first, _ in first })
        for (group, location) in groups.sorted(by: { $0.value < $1.value }) {
            let typeName = NameConversion.upperCamelCase(group.split(separator: ".").last.map(String.init) ?? group)
            if let model = declared[typeName] {
                error("endpoint group '\(group)' becomes the Swift type '\(typeName)', which is also a type declared at line \(model.line); rename one", at: location)
            } else if BuiltinType(rawValue: typeName) != nil || (SwiftNames.reservedTypeNames.contains(typeName) && typeName != "Data" && typeName != "Date") {
                // `Data` and `Date` are safe: generated code spells Foundation's as `Foundation.Data`.
                error("endpoint group '\(group)' becomes the Swift type '\(typeName)', which would shadow the type of that name inside the group; rename the group", at: location)
            }
        }
    }

    private mutating func checkEndpointName(_ endpoint: EndpointDeclaration, calls: inout [String: SourceLocation], groups: inout [String: SourceLocation]) {
        let segments = endpoint.segments
        for segment in segments {
            if segment.isEmpty {
                error("endpoint name '\(endpoint.name.value)' has an empty segment; write names like 'auth.users.create'", at: endpoint.name.location)
                return
            }
            checkIdentifier(Located(segment, at: endpoint.name.location), "endpoint name segment")
        }
        let full = segments.joined(separator: ".")
        if let first = calls[full] {
            error("duplicate endpoint name '\(full)'; first declared at line \(first.line)", at: endpoint.name.location)
        } else if let first = groups[full] {
            error("endpoint '\(full)' has the name of the group of endpoints at line \(first.line)", at: endpoint.name.location)
        } else {
            calls[full] = endpoint.name.location
        }
        for length in stride(from: 1, to: segments.count, by: 1) {
            let prefix = segments.prefix(length).joined(separator: ".")
            if let call = calls[prefix] {
                error("'\(prefix)' is an endpoint (line \(call.line)) and cannot also be the group of '\(full)'", at: endpoint.name.location)
            }
            if groups[prefix] == nil { groups[prefix] = endpoint.name.location }
        }
    }

    private mutating func checkPath(_ endpoint: EndpointDeclaration) {
        let path = endpoint.path
        if !path.value.hasPrefix("/") {
            error("path '\(path.value)' must start with '/'", at: path.location)
        }
        if path.value.contains("?") || path.value.contains("#") {
            error("path '\(path.value)' must not contain a query or fragment; declare query parameters under 'params'", at: path.location)
        }
        let template = PathTemplate.parse(path.value)
        for problem in template.problems {
            var location = path.location
            location.column += problem.offset
            error("invalid path: \(problem.message)", at: location)
        }
        var seen: Set<String> = []
        let declared = endpoint.parameters.filter { $0.location == .path }
        for (index, segment) in template.segments.enumerated() {
            guard case .parameter(let name, let rest) = segment else { continue }
            if !name.unicodeScalars.allSatisfy({ $0 == "_" || ($0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0))) }) {
                error("path parameter '{\(name)}' must be a name of letters, digits and '_'", at: path.location)
                continue
            }
            if !seen.insert(name).inserted {
                error("path parameter '{\(name)}' appears twice in '\(path.value)'", at: path.location)
            }
            if rest && index != template.segments.count - 1 {
                error("'{\(name)...}' matches the rest of the path and must come last", at: path.location)
            }
            if !declared.contains(where: { $0.key.value == name }) {
                let hint = Suggestion.closest(to: name, in: endpoint.parameters.map(\.key.value)).map { "; did you mean '\($0)'?" } ?? ""
                error("path parameter '{\(name)}' of '\(endpoint.name.value)' is not declared under 'params'\(hint)", at: path.location)
            }
        }
        for parameter in declared where !seen.contains(parameter.key.value) {
            error("path parameter '\(parameter.key.value)' does not appear in the path '\(path.value)'", at: parameter.key.location)
        }
    }

    private mutating func checkParameters(_ endpoint: EndpointDeclaration) {
        var swiftNames: [String: SourceLocation] = [:]
        var bodies = 0
        func claim(_ name: String, at location: SourceLocation, validator: inout SpecValidator) {
            if let first = swiftNames[name] {
                validator.error("two parameters of '\(endpoint.name.value)' are named '\(name)' in Swift (the other at line \(first.line)); set 'swift:' on one", at: location)
            } else {
                swiftNames[name] = location
            }
        }
        for parameter in endpoint.parameters {
            checkResolves(parameter.type)
            guard types.isKnown(parameter.type.value.innermostName) else { continue }
            if let label = parameter.label, label.value != "_" {
                checkIdentifier(label, "argument label", allowKeywords: true)
            }
            switch parameter.location {
            case .path:
                checkIdentifier(parameter.swiftName, "parameter name")
                if !types.isScalar(parameter.type.value) || parameter.type.value.isOptional {
                    error("path parameter '\(parameter.key.value)' must have a non-optional scalar type (String, Int, UUID, an enum...), not '\(parameter.type.value)'", at: parameter.type.location)
                }
                claim(parameter.swiftName.value, at: parameter.key.location, validator: &self)
            case .query:
                checkIdentifier(parameter.swiftName, "parameter name")
                if !types.isScalar(parameter.type.value) {
                    error(
                        "query parameter '\(parameter.key.value)' must have a scalar type (String, Int, Bool, UUID, Date, an enum, optionally '?'), not '\(parameter.type.value)'",
                        at: parameter.type.location
                    )
                }
                claim(parameter.swiftName.value, at: parameter.key.location, validator: &self)
            case .body:
                bodies += 1
                if bodies == 2 {
                    error("endpoint '\(endpoint.name.value)' has more than one body parameter", at: parameter.key.location)
                }
                if parameter.type.value.isOptional {
                    error("body parameter '\(parameter.key.value)' cannot be optional; make the body model's fields optional instead", at: parameter.type.location)
                }
                if endpoint.method.value == .get || endpoint.method.value == .head {
                    error("\(endpoint.method.value.rawValue) requests cannot carry a body", at: parameter.key.location)
                }
                if parameter.flatten {
                    guard let structure = types.structure(parameter.type.value) else {
                        error("'flatten' needs a struct model as the body type, not '\(parameter.type.value)'", at: parameter.type.location)
                        continue
                    }
                    for field in structure.fields { claim(field.swiftName.value, at: parameter.key.location, validator: &self) }
                } else {
                    checkIdentifier(parameter.swiftName, "parameter name")
                    claim(parameter.swiftName.value, at: parameter.key.location, validator: &self)
                }
                if parameter.contentType != nil, !types.isBytes(parameter.type.value) {
                    error("'contentType' applies to raw 'Bytes' bodies only; JSON bodies are sent as application/json", at: parameter.key.location)
                }
                if let field = parameter.formField {
                    if !types.isBytes(parameter.type.value) {
                        error("'form' applies to raw 'Bytes' bodies only: it sends them as the file part of a multipart form", at: field.location)
                    } else if !MultipartFieldName.isValid(field.value) {
                        error("'form' names a form field: letters, digits, '_' and '-', not '\(field.value)'", at: field.location)
                    }
                }
            }
            if parameter.location != .body, let field = parameter.formField {
                error("'form' applies to body parameters only", at: field.location)
            }
            if parameter.location != .body, parameter.flatten {
                error("'flatten' applies to body parameters only", at: parameter.key.location)
            }
        }
    }
}

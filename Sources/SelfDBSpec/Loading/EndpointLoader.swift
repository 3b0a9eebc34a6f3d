/// Loads one entry of `endpoints:`.
enum EndpointLoader {
    static let methodKeys = HTTPMethodName.allCases.map { $0.rawValue.lowercased() }
    static let keys = methodKeys + ["method", "path", "summary", "auth", "params", "returns", "session", "idempotent", "deprecated", "drift", "stream"]
    static let parameterKeys = ["in", "type", "label", "swift", "description", "flatten", "contentType", "form", "drift"]

    static func load(_ entry: SpecNode.Entry, defaultAuth: AuthRequirement, reader: inout NodeReader) -> EndpointDeclaration? {
        let name = Located(entry.key.text, at: entry.key.location)
        guard let mapping = reader.mapping(entry.value, "endpoint '\(name.value)'") else { return nil }
        reader.checkKeys(mapping, allowed: keys, in: "endpoint '\(name.value)'")

        guard let (method, path) = methodAndPath(mapping, endpoint: name, reader: &reader) else { return nil }
        let template = PathTemplate.parse(path.value)
        let pathNames = Set(template.parameterNames)

        var auth = defaultAuth
        if let authEntry = reader.entry(mapping, "auth") {
            auth = reader.choice(authEntry.value, "auth", as: AuthRequirement.self)?.value ?? defaultAuth
        }
        var parameters: [ParameterDeclaration] = []
        if let paramsEntry = reader.entry(mapping, "params"), let params = reader.mapping(paramsEntry.value, "'params' of '\(name.value)'") {
            for parameter in params.entries {
                if let loaded = loadParameter(parameter, pathNames: pathNames, reader: &reader) { parameters.append(loaded) }
            }
        }
        var returns: Located<TypeReference>?
        if let returnsEntry = reader.entry(mapping, "returns") {
            returns = reader.typeReference(returnsEntry.value, "'returns'")
        }
        var session: SessionEffect?
        if let sessionEntry = reader.entry(mapping, "session") {
            session = reader.choice(sessionEntry.value, "session effect", as: SessionEffect.self)?.value
        }
        var endpoint = EndpointDeclaration(
            name: name,
            method: method,
            path: path,
            summary: reader.optionalString(mapping, "summary", "'summary'")?.value,
            auth: auth,
            parameters: parameters,
            returns: returns,
            session: session,
            isIdempotent: reader.bool(mapping, "idempotent", "'idempotent'", default: method.value.isIdempotent),
            isDeprecated: reader.bool(mapping, "deprecated", "'deprecated'", default: false)
        )
        endpoint.driftReason = reader.optionalString(mapping, "drift", "'drift'")?.value
        if let streamEntry = reader.entry(mapping, "stream") {
            endpoint.stream = reader.choice(streamEntry.value, "streamed part", as: StreamedPart.self)
        }
        return endpoint
    }

    /// Either the shorthand `get: /path` or `method: GET` with `path: /path`.
    private static func methodAndPath(_ mapping: SpecNode.Mapping, endpoint: Located<String>, reader: inout NodeReader) -> (Located<HTTPMethodName>, Located<String>)? {
        let shorthand = mapping.entries.filter { methodKeys.contains($0.key.text) }
        if shorthand.count > 1 {
            reader.error(
                "endpoint '\(endpoint.value)' names more than one method ('\(shorthand[0].key.text)' and '\(shorthand[1].key.text)'); declare one endpoint per method",
                at: shorthand[1].key.location
            )
        }
        if let first = shorthand.first {
            if let explicit = reader.entry(mapping, "method") {
                reader.error("endpoint '\(endpoint.value)' has both '\(first.key.text):' and 'method:'; use one", at: explicit.key.location)
            }
            if let explicitPath = reader.entry(mapping, "path") {
                reader.error("endpoint '\(endpoint.value)' has both '\(first.key.text): <path>' and 'path:'; use one", at: explicitPath.key.location)
            }
            guard let method = HTTPMethodName(rawValue: first.key.text.uppercased()),
                let path = reader.string(first.value, "the path of '\(endpoint.value)'")
            else { return nil }
            return (Located(method, at: first.key.location), path)
        }
        guard let methodEntry = reader.entry(mapping, "method") else {
            // A misspelt shorthand (`gett:`) was reported as an unknown key with its fix;
            // saying the method is missing too would only repeat it.
            let misspeltMethod = mapping.entries.contains { entry in
                !keys.contains(entry.key.text) && Suggestion.closest(to: entry.key.text, in: keys).map(methodKeys.contains) == true
            }
            if !misspeltMethod {
                reader.error("endpoint '\(endpoint.value)' needs a method and path, e.g. 'get: /users/'", at: endpoint.location)
            }
            return nil
        }
        guard let methodText = reader.string(methodEntry.value, "'method'") else { return nil }
        guard let method = HTTPMethodName(rawValue: methodText.value.uppercased()) else {
            let names = HTTPMethodName.allCases.map(\.rawValue)
            let hint =
                Suggestion.closest(to: methodText.value.uppercased(), in: names).map { "; did you mean '\($0)'?" }
                ?? "; expected one of: \(names.joined(separator: ", "))"
            reader.error("unknown HTTP method '\(methodText.value)'\(hint)", at: methodText.location)
            return nil
        }
        guard let pathEntry = reader.entry(mapping, "path") else {
            reader.error("endpoint '\(endpoint.value)' needs a 'path'", at: methodEntry.key.location)
            return nil
        }
        guard let path = reader.string(pathEntry.value, "'path'") else { return nil }
        return (Located(method, at: methodText.location), path)
    }

    private static func loadParameter(_ entry: SpecNode.Entry, pathNames: Set<String>, reader: inout NodeReader) -> ParameterDeclaration? {
        let key = Located(entry.key.text, at: entry.key.location)
        var location: ParameterLocation = pathNames.contains(key.value) ? .path : .query
        var swiftName = Located(NameConversion.swiftIdentifier(fromWireName: key.value), at: key.location)
        var label: Located<String>?
        var description: String?
        var flatten = false
        var contentType: String?
        var driftReason: String?
        var formField: Located<String>?
        let type: Located<TypeReference>?
        if case .mapping(let mapping) = entry.value {
            reader.checkKeys(mapping, allowed: parameterKeys, in: "parameter '\(key.value)'")
            if let inEntry = reader.entry(mapping, "in") {
                location = reader.choice(inEntry.value, "parameter location", as: ParameterLocation.self)?.value ?? location
            }
            guard let typeEntry = reader.entry(mapping, "type") else {
                reader.error("parameter '\(key.value)' needs a 'type'", at: key.location)
                return nil
            }
            type = reader.typeReference(typeEntry.value, "the type of '\(key.value)'")
            if let override = reader.optionalString(mapping, "swift", "'swift'") { swiftName = override }
            label = reader.optionalString(mapping, "label", "'label'")
            description = reader.optionalString(mapping, "description", "'description'")?.value
            flatten = reader.bool(mapping, "flatten", "'flatten'", default: false)
            contentType = reader.optionalString(mapping, "contentType", "'contentType'")?.value
            driftReason = reader.optionalString(mapping, "drift", "'drift'")?.value
            formField = reader.optionalString(mapping, "form", "'form'")
        } else {
            type = reader.typeReference(entry.value, "the type of '\(key.value)'")
        }
        guard let type else { return nil }
        var parameter = ParameterDeclaration(key: key, location: location, type: type, swiftName: swiftName, label: label, description: description, flatten: flatten, contentType: contentType)
        parameter.driftReason = driftReason
        parameter.formField = formField
        return parameter
    }
}

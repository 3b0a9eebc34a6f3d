import SelfDBSpec

/// Emits one endpoint as one function.
struct FunctionTranslator {
    let spec: Spec
    let types: TypeMapper
    let endpoint: EndpointDeclaration
    let client: String

    func emit(into writer: inout SwiftWriter) {
        emitDocumentation(into: &writer)
        if endpoint.isDeprecated { writer.line("@available(*, deprecated)") }
        // A write's response (a status, the stored record) is often not needed.
        if endpoint.returns != nil, endpoint.method.value != .get { writer.line("@discardableResult") }
        let name = SwiftNamesRendering.member(endpoint.segments.last ?? "call")
        let returnClause = returnType.map { " -> \($0)" } ?? ""
        writer.block("\(spec.access.rawValue) func \(name)", parameters: signature, suffix: " async throws\(returnClause)") { writer in
            emitBody(into: &writer)
        }
    }

    private var returnType: String? {
        endpoint.returns.map { types.swiftType($0.value) }
    }

    // MARK: - Signature

    private var signature: [String] {
        endpoint.parameters.flatMap { parameter -> [String] in
            if parameter.location == .body, parameter.flatten, let fields = flattenedFields(parameter) {
                return fields.map { field in
                    let defaultValue =
                        field.defaultValue.map { " = " + types.literal($0.value, for: field.type.value) }
                        ?? (field.type.value.isOptional ? " = nil" : "")
                    return "\(SwiftNamesRendering.member(field.swiftName.value)): \(types.swiftType(field.type.value))\(defaultValue)"
                }
            }
            let name = SwiftNamesRendering.member(parameter.swiftName.value)
            let type = types.swiftType(parameter.type.value)
            let optionalDefault = parameter.type.value.isOptional ? " = nil" : ""
            switch parameter.label?.value {
            case nil: return ["\(name): \(type)\(optionalDefault)"]
            case "_": return ["_ \(name): \(type)\(optionalDefault)"]
            case let label?: return ["\(SwiftNamesRendering.member(label)) \(name): \(type)\(optionalDefault)"]
            }
        }
    }

    private func flattenedFields(_ parameter: ParameterDeclaration) -> [FieldDeclaration]? {
        guard case .structure(let structure) = types.declaration(of: parameter.type.value)?.kind else { return nil }
        return structure.fields
    }

    // MARK: - Body

    private func emitBody(into writer: inout SwiftWriter) {
        // Each argument of `APIRequest(...)` as its lines; commas go after all but the last.
        var arguments: [[String]] = [
            ["method: .\(endpoint.method.value.rawValue.lowercased())"],
            ["path: \(pathLiteral)"],
        ]
        if endpoint.auth != .none { arguments.append(["auth: .\(endpoint.auth.rawValue)"]) }
        if let session = endpoint.session { arguments.append(["session: .\(session.rawValue)"]) }
        if endpoint.isIdempotent != endpoint.method.value.isIdempotent {
            arguments.append(["idempotent: \(endpoint.isIdempotent)"])
        }
        let query = endpoint.parameters.filter { $0.location == .query }
        if !query.isEmpty {
            let items = query.map { "QueryItem(\($0.key.value.swiftLiteral), \(SwiftNamesRendering.member($0.swiftName.value)))" }
            // One item fits on the line (swift-format would join it there); more, one a line.
            arguments.append(items.count == 1 ? ["query: [\(items[0])]"] : ["query: ["] + items.map { "    \($0)," } + ["]"])
        }
        if let body = endpoint.parameters.first(where: { $0.location == .body }) {
            arguments.append(["body: \(bodyExpression(body))"])
        }
        let returned = endpoint.returns?.value
        let returnsBytes = returned.map(types.isBytes) ?? false
        let decodes = returned != nil && !returnsBytes
        writer.line("try await \(client).\(returnsBytes ? "sendForBytes" : "send")(")
        writer.indented { writer in
            writer.line("APIRequest(")
            writer.indented { writer in
                for (index, lines) in arguments.enumerated() {
                    for (offset, line) in lines.enumerated() {
                        let needsComma = offset == lines.count - 1 && index < arguments.count - 1
                        writer.line(line + (needsComma ? "," : ""))
                    }
                }
            }
            writer.line(decodes ? ")," : ")")
            if decodes, let returned { writer.line("decoding: \(types.swiftType(returned)).self") }
        }
        writer.line(")")
    }

    private func bodyExpression(_ parameter: ParameterDeclaration) -> String {
        let name = SwiftNamesRendering.member(parameter.swiftName.value)
        if types.isBytes(parameter.type.value) {
            let contentType = parameter.contentType ?? "application/octet-stream"
            if let field = parameter.formField?.value {
                return ".multipartFile(\(name), field: \(field.swiftLiteral), contentType: \(contentType.swiftLiteral))"
            }
            return ".bytes(\(name), contentType: \(contentType.swiftLiteral))"
        }
        if parameter.flatten, let fields = flattenedFields(parameter) {
            let arguments = fields.map { field -> String in
                let member = SwiftNamesRendering.member(field.swiftName.value)
                return "\(member): \(member)"
            }
            return "try \(client).json(\(types.swiftType(parameter.type.value))(\(arguments.joined(separator: ", "))))"
        }
        return "try \(client).json(\(name))"
    }

    /// The path as a Swift string literal with `\(path:)` interpolations.
    private var pathLiteral: String {
        let template = PathTemplate.parse(endpoint.path.value)
        var literal = "\""
        for segment in template.segments {
            switch segment {
            case .literal(let text):
                literal += String(text.swiftLiteral.dropFirst().dropLast())
            case .parameter(let name, let rest):
                let swiftName =
                    endpoint.parameters.first { $0.key.value == name && $0.location == .path }?.swiftName.value
                    ?? NameConversion.swiftIdentifier(fromWireName: name)
                literal += "\\(\(rest ? "pathRest" : "path"): \(SwiftNamesRendering.member(swiftName)))"
            }
        }
        return literal + "\""
    }

    // MARK: - Documentation

    private func emitDocumentation(into writer: inout SwiftWriter) {
        writer.documentation(endpoint.summary)
        if endpoint.summary != nil { writer.line("///") }
        writer.line("/// `\(endpoint.method.value.rawValue) \(endpoint.path.value)`")
        let documented = endpoint.parameters.filter { $0.description != nil }
        if !documented.isEmpty { writer.line("///") }
        for parameter in documented {
            writer.line("/// - Parameter \(parameter.swiftName.value): \(parameter.description ?? "")")
        }
    }
}

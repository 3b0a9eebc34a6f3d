import SelfDBSpec

/// Emits one function of an endpoint: the one over `Data`, or its file variant (`stream:`).
struct FunctionTranslator {
    /// Which of an endpoint's functions to emit.
    enum Variant {
        /// Bodies and answers in memory, as `Foundation.Data` when they are raw bytes.
        case inMemory
        /// The `Bytes` body read from `fileURL` as it is sent (`stream: body`).
        case bodyFromFile
        /// The `Bytes` answer written to `destination` as it arrives (`stream: returns`).
        case answerToFile
    }

    let spec: Spec
    let types: TypeMapper
    let endpoint: EndpointDeclaration
    let client: String
    var variant: Variant = .inMemory

    func emit(into writer: inout SwiftWriter) {
        emitDocumentation(into: &writer)
        if endpoint.isDeprecated { writer.line("@available(*, deprecated)") }
        // A write's response (a status, the stored record) is often not needed, nor the size
        // of a file just written.
        if variant == .answerToFile || (endpoint.returns != nil && endpoint.method.value != .get) { writer.line("@discardableResult") }
        let name = SwiftNamesRendering.member(endpoint.segments.last ?? "call")
        let returnClause = returnType.map { " -> \($0)" } ?? ""
        writer.block("\(spec.access.rawValue) func \(name)", parameters: signature, suffix: " async throws\(returnClause)") { writer in
            emitBody(into: &writer)
        }
    }

    private var returnType: String? {
        variant == .answerToFile ? "Int64" : endpoint.returns.map { types.swiftType($0.value) }
    }

    // MARK: - Signature

    private var signature: [String] {
        var arguments = endpoint.parameters.flatMap { parameter -> [String] in
            if variant == .bodyFromFile, parameter.location == .body { return ["fileURL: Foundation.URL"] }
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
        if variant == .answerToFile { arguments.append("to destination: Foundation.URL") }
        if variant != .inMemory { arguments.append("progress: TransferProgressHandler? = nil") }
        return arguments
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
        let body = endpoint.parameters.first { $0.location == .body }
        if let body, variant != .bodyFromFile {
            arguments.append(["body: \(bodyExpression(body))"])
        }
        let returned = endpoint.returns?.value
        let returnsBytes = returned.map(types.isBytes) ?? false
        let decoding = returned.flatMap { returnsBytes ? nil : "decoding: \(types.swiftType($0)).self" }
        // What follows the `APIRequest(...)` argument, and the client call that takes it.
        let call: String
        var trailing: [String] = []
        switch variant {
        case .inMemory:
            call = returnsBytes ? "sendForBytes" : "send"
        case .bodyFromFile:
            call = "upload"
            trailing.append("fromFile: fileURL")
            if let field = body?.formField?.value { trailing.append("formField: \(field.swiftLiteral)") }
            if let contentType = body?.contentType, contentType != "application/octet-stream" {
                trailing.append("contentType: \(contentType.swiftLiteral)")
            }
            trailing.append("progress: progress")
        case .answerToFile:
            call = "download"
            trailing = ["to: destination", "progress: progress"]
        }
        if variant != .answerToFile, let decoding { trailing.append(decoding) }
        writer.line("try await \(client).\(call)(")
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
            writer.line(trailing.isEmpty ? ")" : "),")
            for (index, line) in trailing.enumerated() { writer.line(line + (index < trailing.count - 1 ? "," : "")) }
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
        switch variant {
        case .inMemory: break
        case .bodyFromFile:
            writer.line("///")
            if endpoint.parameters.first(where: { $0.location == .body })?.formField != nil {
                writer.line("/// The file's contents are the body's one form part, read from `fileURL` as it is sent:")
                writer.line("/// memory stays flat whatever the file's size (the form is first copied whole into the")
                writer.line("/// temporary folder, and removed once sent; a transport without a streamed `upload` of")
                writer.line("/// its own reads it whole and reports progress at the end only). Cancelling the calling")
                writer.line("/// task stops the upload at once.")
            } else {
                writer.line("/// The body is read from `fileURL` as it is sent: memory stays flat whatever the file's size")
                writer.line("/// (a transport without a streamed `upload` of its own reads the file whole and reports")
                writer.line("/// progress at the end only). Cancelling the calling task stops the upload at once.")
            }
            if !endpoint.isIdempotent {
                // The one retry a non-idempotent upload gets is for a request certainly not sent.
                writer.line("/// An upload whose answer was lost is not sent again by itself (the server may hold it):")
                writer.line("/// `SelfDBError.outcomeIsUnknown` says so; look before sending it again.")
            }
        case .answerToFile:
            writer.line("///")
            writer.line("/// The answer is written to `destination` as it arrives: memory stays flat whatever its size")
            writer.line("/// (a transport without a streamed `download` of its own holds the body whole and reports")
            writer.line("/// progress at the end only). `destination` is replaced only once the whole body arrived; a")
            writer.line("/// download that fails or is cancelled (the calling task's cancellation stops it at once)")
            writer.line("/// leaves it as it was, and no partial file.")
        }
        var documented = endpoint.parameters.compactMap { parameter -> (name: String, text: String)? in
            if variant == .bodyFromFile, parameter.location == .body {
                return ("fileURL", "The local file whose contents are the \(parameter.formField == nil ? "body" : "form's file part").")
            }
            return parameter.description.map { (parameter.swiftName.value, $0) }
        }
        if variant == .answerToFile { documented.append(("destination", "Where to write the body (its folder must exist).")) }
        if variant != .inMemory {
            let moved = variant == .bodyFromFile ? "sent" : "received"
            documented.append(("progress", "Told the bytes \(moved), at least every 1 % or 1 MiB, and at the end."))
        }
        if !documented.isEmpty { writer.line("///") }
        for (name, text) in documented {
            writer.line("/// - Parameter \(name): \(text)")
        }
        switch variant {
        case .inMemory: break
        case .bodyFromFile:
            writer.line("/// - Throws: `SelfDBError.fileError` when `fileURL` does not exist or cannot be read (nothing is")
            writer.line("///   sent); otherwise the errors of the `Data` variant.")
        case .answerToFile:
            writer.line("/// - Returns: The size of the file written.")
            writer.line("/// - Throws: `SelfDBError.fileError` when `destination` cannot be written or the disk fills")
            writer.line("///   up, `SelfDBError.invalidResponse` when the body is shorter or longer than its")
            writer.line("///   `Content-Length`; otherwise the errors of the `Data` variant.")
        }
    }
}

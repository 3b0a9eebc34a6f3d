import SelfDBSpec

/// Emits `endpoints:` as a tree of small structs, one per dotted group, each holding the
/// client and one plain `async throws` function per endpoint: no per-operation types.
struct EndpointTranslator {
    let spec: Spec
    let types: TypeMapper
    var access: String { spec.access.rawValue }

    /// A node of the group tree: its endpoints and subgroups, in first-mention order.
    final class Group {
        let path: [String]
        var endpoints: [EndpointDeclaration] = []
        var children: [Group] = []

        init(path: [String]) { self.path = path }

        func child(_ name: String) -> Group {
            if let existing = children.first(where: { $0.path.last == name }) { return existing }
            let group = Group(path: path + [name])
            children.append(group)
            return group
        }
    }

    func emit(into writer: inout SwiftWriter) {
        guard let client = spec.client else { return }
        let root = Group(path: [])
        for endpoint in spec.endpoints {
            var group = root
            for segment in endpoint.segments.dropLast() { group = group.child(segment) }
            group.endpoints.append(endpoint)
        }
        let rootName = client.name.value
        emitRoot(root, name: rootName, extendsExisting: client.extendsExistingType, into: &writer)
        var pending = root.children.map { (parent: rootName, group: $0) }
        while !pending.isEmpty {
            let (parent, group) = pending.removeFirst()
            let typeName = Self.typeName(group)
            writer.line()
            emitGroup(group, typeName: typeName, parent: parent, into: &writer)
            pending.append(contentsOf: group.children.map { (parent: "\(parent).\(typeName)", group: $0) })
        }
    }

    static func typeName(_ group: Group) -> String {
        NameConversion.upperCamelCase(group.path.last ?? "")
    }

    private func emitRoot(_ root: Group, name: String, extendsExisting: Bool, into writer: inout SwiftWriter) {
        let errorKinds = spec.errors.map { "\($0.status.value): .\($0.kind.value.rawValue)" }
        if extendsExisting {
            writer.block("extension \(name)") { writer in
                emitErrorKinds(errorKinds, into: &writer)
                emitMembers(root, client: "apiClient", into: &writer)
            }
            return
        }
        writer.documentation(spec.description ?? "The endpoints of `\(spec.file)`.")
        writer.block("\(access) struct \(name): Sendable") { writer in
            emitErrorKinds(errorKinds, into: &writer)
            writer.line()
            writer.line("/// The client that sends the requests.")
            writer.line("\(access) let api: APIClient")
            writer.line()
            writer.line("/// Creates the endpoints over an existing client.")
            writer.block("\(access) init(api: APIClient)") { $0.line("self.api = api") }
            writer.line()
            writer.line("/// Creates a client for the server at `baseURL`.")
            writer.block("\(access) init(baseURL: Foundation.URL, apiKey: String? = nil, transport: any HTTPTransport = platformHTTPTransport())") { writer in
                writer.line("self.api = APIClient(configuration: .init(baseURL: baseURL, apiKey: apiKey, errorKinds: Self.errorKinds), transport: transport)")
            }
            emitMembers(root, client: "api", into: &writer)
        }
    }

    private func emitErrorKinds(_ entries: [String], into writer: inout SwiftWriter) {
        writer.line("/// HTTP status → error kind, from the spec's `errors:`.")
        guard !entries.isEmpty else {
            writer.line("\(access) static let errorKinds: [Int: APIErrorKind] = [:]")
            return
        }
        writer.line("\(access) static let errorKinds: [Int: APIErrorKind] = [")
        writer.indented { writer in
            for entry in entries { writer.line(entry + ",") }
        }
        writer.line("]")
    }

    private func emitGroup(_ group: Group, typeName: String, parent: String, into writer: inout SwiftWriter) {
        writer.block("extension \(parent)") { writer in
            writer.line("/// The `\(group.path.joined(separator: "."))` endpoints.")
            writer.block("\(access) struct \(typeName): Sendable") { writer in
                writer.line("/// The client that sends the requests.")
                writer.line("\(access) let api: APIClient")
                writer.line()
                writer.line("/// Creates the group over `api`.")
                writer.block("\(access) init(api: APIClient)") { $0.line("self.api = api") }
                emitMembers(group, client: "api", into: &writer)
            }
        }
    }

    private func emitMembers(_ group: Group, client: String, into writer: inout SwiftWriter) {
        for child in group.children {
            let property = SwiftNamesRendering.member(child.path.last ?? "")
            writer.line()
            writer.line("/// The `\(child.path.joined(separator: "."))` endpoints.")
            writer.line("\(access) var \(property): \(Self.typeName(child)) { \(Self.typeName(child))(api: \(client)) }")
        }
        for endpoint in group.endpoints {
            writer.line()
            FunctionTranslator(spec: spec, types: types, endpoint: endpoint, client: client).emit(into: &writer)
            if let stream = endpoint.stream?.value {
                writer.line()
                FunctionTranslator(spec: spec, types: types, endpoint: endpoint, client: client, variant: stream == .body ? .bodyFromFile : .answerToFile)
                    .emit(into: &writer)
            }
        }
    }
}

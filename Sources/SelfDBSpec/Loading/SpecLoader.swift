/// Turns spec text into a `Spec`: YAML → located nodes → spec model.
///
/// The loader checks shape (known keys, the right kind of node, well-formed type
/// expressions, known enumerations of values); cross-references and naming rules are the
/// validator's. It never stops at the first problem: a model whose field is broken keeps
/// its name, so the rest of the file is still checked without a cascade of follow-on errors.
public enum SpecLoader {
    /// The outcome of loading.
    public struct Result: Sendable {
        /// The spec, absent only when the YAML itself could not be read.
        public var spec: Spec?
        /// Everything found wrong.
        public var diagnostics: [Diagnostic]
    }

    /// Top-level keys, in the order the documentation presents them.
    public static let topLevelKeys = ["spec", "description", "access", "client", "defaults", "errors", "models", "endpoints", "tables", "elsewhere"]

    /// Loads `text`, naming `file` in every location.
    public static func load(_ text: String, file: String) -> Result {
        let read = YAMLReader.read(text, file: file)
        guard let root = read.root else { return Result(spec: nil, diagnostics: read.diagnostics) }
        var reader = NodeReader(diagnostics: read.diagnostics)
        let spec = loadSpec(root, file: file, reader: &reader)
        return Result(spec: spec, diagnostics: reader.diagnostics)
    }

    private static func loadSpec(_ root: SpecNode, file: String, reader: inout NodeReader) -> Spec? {
        guard case .mapping(let mapping) = root else {
            reader.error("a spec must be a mapping with 'models', 'endpoints' or 'tables', found \(root.kindDescription)", at: root.location)
            return nil
        }
        reader.checkKeys(mapping, allowed: topLevelKeys, in: "the spec")
        var spec = Spec(file: file)

        if let entry = reader.entry(mapping, "spec") {
            if case .scalar(let scalar) = entry.value, scalar.text == "1" {
                // The only version so far.
            } else {
                let found = if case .scalar(let scalar) = entry.value { "'\(scalar.text)'" } else { entry.value.kindDescription }
                reader.error("unsupported spec language version \(found); this generator reads 'spec: 1'", at: entry.value.location)
            }
        }
        spec.description = reader.optionalString(mapping, "description", "'description'")?.value
        if let entry = reader.entry(mapping, "access") {
            spec.access = reader.choice(entry.value, "access level", as: Spec.AccessLevel.self)?.value ?? .internal
        }
        var defaultAuth = AuthRequirement.none
        if let entry = reader.entry(mapping, "defaults"), let defaults = reader.mapping(entry.value, "'defaults'") {
            reader.checkKeys(defaults, allowed: ["auth"], in: "'defaults'")
            if let auth = reader.entry(defaults, "auth") {
                defaultAuth = reader.choice(auth.value, "auth", as: AuthRequirement.self)?.value ?? .none
            }
        }
        if let entry = reader.entry(mapping, "client") {
            spec.client = loadClient(entry.value, reader: &reader)
        }
        if let entry = reader.entry(mapping, "errors") {
            spec.errors = loadErrors(entry.value, reader: &reader)
        }
        if let entry = reader.entry(mapping, "models"), let models = reader.mapping(entry.value, "'models'") {
            spec.models = models.entries.map { ModelLoader.load($0, reader: &reader) }
        }
        if let entry = reader.entry(mapping, "endpoints"), let endpoints = reader.mapping(entry.value, "'endpoints'") {
            spec.endpoints = endpoints.entries.compactMap { EndpointLoader.load($0, defaultAuth: defaultAuth, reader: &reader) }
        }
        if let entry = reader.entry(mapping, "tables"), let tables = reader.mapping(entry.value, "'tables'") {
            spec.tables = tables.entries.compactMap { TableLoader.load($0, reader: &reader) }
        }
        if let entry = reader.entry(mapping, "elsewhere"), let elsewhere = reader.mapping(entry.value, "'elsewhere'") {
            spec.elsewhere = elsewhere.entries.compactMap { loadElsewhere($0, reader: &reader) }
        }
        if spec.client == nil, let first = spec.endpoints.first {
            // Endpoints need a root type; name it after the file so a small spec needs no
            // boilerplate (`billing.yaml` → `BillingAPI`).
            // The same stem the output file takes (`notes.v2.yaml` → `NotesV2API` in
            // `notes.v2.client.generated.swift`).
            let base = file.split(separator: "/").last.map(String.init) ?? file
            let stem = base.hasSuffix(".yaml") || base.hasSuffix(".yml") ? String(base[..<(base.lastIndex(of: ".") ?? base.endIndex)]) : base
            let name = NameConversion.upperCamelCase(stem) + "API"
            spec.client = Spec.ClientOptions(name: Located(name, at: first.name.location), extendsExistingType: false)
        }
        return spec
    }

    /// `"GET /realtime/socket": "why"`.
    private static func loadElsewhere(_ entry: SpecNode.Entry, reader: inout NodeReader) -> ElsewhereDeclaration? {
        let parts = entry.key.text.split(separator: " ", omittingEmptySubsequences: true)
        let methods = ["GET", "PUT", "POST", "DELETE", "PATCH", "HEAD"]
        guard parts.count == 2, methods.contains(String(parts[0])), parts[1].hasPrefix("/") else {
            reader.error("an 'elsewhere' key is a method and a path, such as 'GET /realtime/socket', not '\(entry.key.text)'", at: entry.key.location)
            return nil
        }
        guard let reason = reader.string(entry.value, "the reason for '\(entry.key.text)'") else { return nil }
        return ElsewhereDeclaration(method: String(parts[0]), path: String(parts[1]), location: entry.key.location, reason: reason.value)
    }

    private static func loadClient(_ node: SpecNode, reader: inout NodeReader) -> Spec.ClientOptions? {
        if case .scalar = node {
            return reader.string(node, "'client'").map { Spec.ClientOptions(name: $0, extendsExistingType: false) }
        }
        guard let mapping = reader.mapping(node, "'client'") else { return nil }
        reader.checkKeys(mapping, allowed: ["name", "extends"], in: "'client'")
        guard let nameEntry = reader.entry(mapping, "name") else {
            reader.error("'client' needs a 'name'", at: mapping.location)
            return nil
        }
        guard let name = reader.string(nameEntry.value, "'client.name'") else { return nil }
        let extends = reader.bool(mapping, "extends", "'client.extends'", default: false)
        return Spec.ClientOptions(name: name, extendsExistingType: extends)
    }

    private static func loadErrors(_ node: SpecNode, reader: inout NodeReader) -> [ErrorMapping] {
        guard let mapping = reader.mapping(node, "'errors'") else { return [] }
        var result: [ErrorMapping] = []
        var seen: Set<Int> = []
        for entry in mapping.entries {
            guard let status = Int(entry.key.text), (400...599).contains(status) else {
                reader.error("error status '\(entry.key.text)' must be an HTTP status from 400 to 599", at: entry.key.location)
                continue
            }
            if !seen.insert(status).inserted {
                reader.error("duplicate error status \(status)", at: entry.key.location)
            }
            guard let kind = reader.choice(entry.value, "error kind", as: ErrorKind.self) else { continue }
            result.append(ErrorMapping(status: Located(status, at: entry.key.location), kind: kind))
        }
        return result
    }
}

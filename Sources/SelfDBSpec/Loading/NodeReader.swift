/// Reads located values out of `SpecNode`s, recording a diagnostic for every node that has
/// the wrong shape instead of stopping, so one run reports every problem in a file.
struct NodeReader {
    var diagnostics: [Diagnostic] = []

    mutating func error(_ message: String, at location: SourceLocation) {
        diagnostics.append(.error(message, at: location))
    }

    mutating func warning(_ message: String, at location: SourceLocation) {
        diagnostics.append(.warning(message, at: location))
    }

    /// The node as a mapping, or a diagnostic. An empty value (`models:` with nothing after
    /// it) counts as an empty mapping, which is what its writer meant.
    mutating func mapping(_ node: SpecNode, _ what: String) -> SpecNode.Mapping? {
        switch node {
        case .mapping(let mapping):
            return mapping
        case .scalar(let scalar) where scalar.text.isEmpty && !scalar.isQuoted:
            return SpecNode.Mapping(entries: [], location: scalar.location)
        default:
            error("\(what) must be a mapping, found \(node.kindDescription)", at: node.location)
            return nil
        }
    }

    /// Reports keys not in `allowed` (with a suggestion) and repeated keys.
    mutating func checkKeys(_ mapping: SpecNode.Mapping, allowed: [String], in what: String) {
        var seen: Set<String> = []
        for entry in mapping.entries {
            let key = entry.key.text
            if !seen.insert(key).inserted {
                error("duplicate key '\(key)' in \(what)", at: entry.key.location)
            }
            if !allowed.contains(key) {
                let hint =
                    Suggestion.closest(to: key, in: allowed).map { "; did you mean '\($0)'?" }
                    ?? "; expected one of: \(allowed.joined(separator: ", "))"
                error("unknown key '\(key)' in \(what)\(hint)", at: entry.key.location)
            }
        }
    }

    /// The first entry named `key`.
    func entry(_ mapping: SpecNode.Mapping, _ key: String) -> SpecNode.Entry? {
        mapping.entries.first { $0.key.text == key }
    }

    /// A non-empty string scalar.
    mutating func string(_ node: SpecNode, _ what: String) -> Located<String>? {
        guard case .scalar(let scalar) = node else {
            error("\(what) must be a string, found \(node.kindDescription)", at: node.location)
            return nil
        }
        guard !scalar.text.isEmpty else {
            error("\(what) must not be empty", at: scalar.location)
            return nil
        }
        return Located(scalar.text, at: scalar.location)
    }

    /// A string scalar from an entry of `mapping`, if present.
    mutating func optionalString(_ mapping: SpecNode.Mapping, _ key: String, _ what: String) -> Located<String>? {
        entry(mapping, key).flatMap { string($0.value, what) }
    }

    /// A boolean scalar (`true`/`false` only: YAML 1.1's `yes`/`on` are too easy to misread).
    mutating func bool(_ node: SpecNode, _ what: String) -> Bool? {
        guard case .scalar(let scalar) = node, !scalar.isQuoted else {
            error("\(what) must be true or false, found \(node.kindDescription)", at: node.location)
            return nil
        }
        switch scalar.text {
        case "true": return true
        case "false": return false
        default:
            error("\(what) must be true or false, found '\(scalar.text)'", at: scalar.location)
            return nil
        }
    }

    /// A boolean from an entry of `mapping`, or `defaultValue`.
    mutating func bool(_ mapping: SpecNode.Mapping, _ key: String, _ what: String, default defaultValue: Bool) -> Bool {
        guard let entry = entry(mapping, key) else { return defaultValue }
        return bool(entry.value, what) ?? defaultValue
    }

    /// One of an enumeration's raw values, with a suggestion when misspelt.
    mutating func choice<Choice: RawRepresentable & CaseIterable>(_ node: SpecNode, _ what: String, as type: Choice.Type) -> Located<Choice>? where Choice.RawValue == String {
        guard let text = string(node, what) else { return nil }
        if let value = Choice(rawValue: text.value) { return Located(value, at: text.location) }
        let names = Choice.allCases.map(\.rawValue)
        let hint =
            Suggestion.closest(to: text.value, in: names).map { "; did you mean '\($0)'?" }
            ?? "; expected one of: \(names.joined(separator: ", "))"
        error("unknown \(what) '\(text.value)'\(hint)", at: text.location)
        return nil
    }

    /// A type expression.
    /// Far above `[String: [Model]]?`; keeps a megabyte "type" from being parsed and quoted.
    static let maximumTypeExpressionLength = 500

    mutating func typeReference(_ node: SpecNode, _ what: String) -> Located<TypeReference>? {
        guard let text = string(node, what) else { return nil }
        // Checked before parsing, which looks at every character of the text.
        guard text.value.utf8.count <= Self.maximumTypeExpressionLength else {
            error("\(what) is \(text.value.utf8.count) bytes long; a type expression has at most \(Self.maximumTypeExpressionLength)", at: text.location)
            return nil
        }
        do {
            return Located(try TypeExpressionParser.parse(text.value), at: text.location)
        } catch {
            var location = text.location
            if case .scalar(let scalar) = node { location = scalar.location(ofCharacterOffset: error.offset) }
            self.error("invalid type '\(text.value)': \(error.message)", at: location)
            return nil
        }
    }

    /// A literal scalar: null, bool, integer, number or string.
    mutating func literal(_ node: SpecNode, _ what: String) -> Located<LiteralValue>? {
        guard case .scalar(let scalar) = node else {
            error("\(what) must be a single value, found \(node.kindDescription)", at: node.location)
            return nil
        }
        let text = scalar.text
        let value: LiteralValue
        if scalar.isQuoted {
            value = .string(text)
        } else if text == "null" || text == "~" || text.isEmpty {
            value = .null
        } else if text == "true" || text == "false" {
            value = .bool(text == "true")
        } else if let integer = Int64(text) {
            value = .int(integer)
        } else if let number = Double(text), number.isFinite {
            value = .double(number)
        } else {
            value = .string(text)
        }
        return Located(value, at: scalar.location)
    }
}
